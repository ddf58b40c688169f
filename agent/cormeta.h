/* cormeta.h -- IMetaDataImport (65 slots), IMetaDataImport2 (+8) and
 * IMetaDataAssemblyImport (17): what the agent reads method names through when
 * it asks the runtime (agent/names_resolve.c), each with its slot checks (the
 * IIDs are in corprof_iids.h).
 * Part of corprof.h (read its opening comment: where the facts come from, the
 * ABI rules these declarations follow). */
#ifndef JITSCOPE_CORMETA_H
#define JITSCOPE_CORMETA_H

#include "corprof_types.h"

/* ------------------------------------------------------------------------ */
/* IMetaDataImport (cor.h). Name buffers are WCHAR counts, NUL included.    */
/* ------------------------------------------------------------------------ */

typedef struct IMetaDataImportVtbl {
    CORPROF_IUNKNOWN_SLOTS(IMetaDataImport);

    /* IMetaDataImport */
    void (STDMETHODCALLTYPE *CloseEnum)(IMetaDataImport *self, HCORENUM hEnum);
    HRESULT (STDMETHODCALLTYPE *CountEnum)(IMetaDataImport *self, HCORENUM hEnum,
                                           ULONG *pulCount);
    HRESULT (STDMETHODCALLTYPE *ResetEnum)(IMetaDataImport *self, HCORENUM hEnum, ULONG ulPos);
    HRESULT (STDMETHODCALLTYPE *EnumTypeDefs)(IMetaDataImport *self, HCORENUM *phEnum,
                                              mdTypeDef rTypeDefs[], ULONG cMax,
                                              ULONG *pcTypeDefs);
    HRESULT (STDMETHODCALLTYPE *EnumInterfaceImpls)(IMetaDataImport *self, HCORENUM *phEnum,
                                                    mdTypeDef td, mdInterfaceImpl rImpls[],
                                                    ULONG cMax, ULONG *pcImpls);
    HRESULT (STDMETHODCALLTYPE *EnumTypeRefs)(IMetaDataImport *self, HCORENUM *phEnum,
                                              mdTypeRef rTypeRefs[], ULONG cMax,
                                              ULONG *pcTypeRefs);
    HRESULT (STDMETHODCALLTYPE *FindTypeDefByName)(IMetaDataImport *self, LPCWSTR szTypeDef,
                                                   mdToken tkEnclosingClass, mdTypeDef *ptd);
    HRESULT (STDMETHODCALLTYPE *GetScopeProps)(IMetaDataImport *self, LPWSTR szName,
                                               ULONG cchName, ULONG *pchName, GUID *pmvid);
    HRESULT (STDMETHODCALLTYPE *GetModuleFromScope)(IMetaDataImport *self, mdModule *pmd);
    HRESULT (STDMETHODCALLTYPE *GetTypeDefProps)(IMetaDataImport *self, mdTypeDef td,
                                                 LPWSTR szTypeDef, ULONG cchTypeDef,
                                                 ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                                                 mdToken *ptkExtends);
    HRESULT (STDMETHODCALLTYPE *GetInterfaceImplProps)(IMetaDataImport *self,
                                                       mdInterfaceImpl iiImpl,
                                                       mdTypeDef *pClass, mdToken *ptkIface);
    HRESULT (STDMETHODCALLTYPE *GetTypeRefProps)(IMetaDataImport *self, mdTypeRef tr,
                                                 mdToken *ptkResolutionScope, LPWSTR szName,
                                                 ULONG cchName, ULONG *pchName);
    HRESULT (STDMETHODCALLTYPE *ResolveTypeRef)(IMetaDataImport *self, mdTypeRef tr,
                                                REFIID riid, IUnknown **ppIScope,
                                                mdTypeDef *ptd);
    HRESULT (STDMETHODCALLTYPE *EnumMembers)(IMetaDataImport *self, HCORENUM *phEnum,
                                             mdTypeDef cl, mdToken rMembers[], ULONG cMax,
                                             ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumMembersWithName)(IMetaDataImport *self, HCORENUM *phEnum,
                                                     mdTypeDef cl, LPCWSTR szName,
                                                     mdToken rMembers[], ULONG cMax,
                                                     ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumMethods)(IMetaDataImport *self, HCORENUM *phEnum,
                                             mdTypeDef cl, mdMethodDef rMethods[], ULONG cMax,
                                             ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumMethodsWithName)(IMetaDataImport *self, HCORENUM *phEnum,
                                                     mdTypeDef cl, LPCWSTR szName,
                                                     mdMethodDef rMethods[], ULONG cMax,
                                                     ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumFields)(IMetaDataImport *self, HCORENUM *phEnum,
                                            mdTypeDef cl, mdFieldDef rFields[], ULONG cMax,
                                            ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumFieldsWithName)(IMetaDataImport *self, HCORENUM *phEnum,
                                                    mdTypeDef cl, LPCWSTR szName,
                                                    mdFieldDef rFields[], ULONG cMax,
                                                    ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumParams)(IMetaDataImport *self, HCORENUM *phEnum,
                                            mdMethodDef mb, mdParamDef rParams[], ULONG cMax,
                                            ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumMemberRefs)(IMetaDataImport *self, HCORENUM *phEnum,
                                                mdToken tkParent, mdMemberRef rMemberRefs[],
                                                ULONG cMax, ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumMethodImpls)(IMetaDataImport *self, HCORENUM *phEnum,
                                                 mdTypeDef td, mdToken rMethodBody[],
                                                 mdToken rMethodDecl[], ULONG cMax,
                                                 ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumPermissionSets)(IMetaDataImport *self, HCORENUM *phEnum,
                                                    mdToken tk, DWORD dwActions,
                                                    mdPermission rPermission[], ULONG cMax,
                                                    ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *FindMember)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName,
                                            PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                            mdToken *pmb);
    HRESULT (STDMETHODCALLTYPE *FindMethod)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName,
                                            PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                            mdMethodDef *pmb);
    HRESULT (STDMETHODCALLTYPE *FindField)(IMetaDataImport *self, mdTypeDef td, LPCWSTR szName,
                                           PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                           mdFieldDef *pmb);
    HRESULT (STDMETHODCALLTYPE *FindMemberRef)(IMetaDataImport *self, mdTypeRef td,
                                               LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                               ULONG cbSigBlob, mdMemberRef *pmr);
    HRESULT (STDMETHODCALLTYPE *GetMethodProps)(IMetaDataImport *self, mdMethodDef mb,
                                                mdTypeDef *pClass, LPWSTR szMethod,
                                                ULONG cchMethod, ULONG *pchMethod,
                                                DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                                ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                                DWORD *pdwImplFlags);
    HRESULT (STDMETHODCALLTYPE *GetMemberRefProps)(IMetaDataImport *self, mdMemberRef mr,
                                                   mdToken *ptk, LPWSTR szMember,
                                                   ULONG cchMember, ULONG *pchMember,
                                                   PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig);
    HRESULT (STDMETHODCALLTYPE *EnumProperties)(IMetaDataImport *self, HCORENUM *phEnum,
                                                mdTypeDef td, mdProperty rProperties[],
                                                ULONG cMax, ULONG *pcProperties);
    HRESULT (STDMETHODCALLTYPE *EnumEvents)(IMetaDataImport *self, HCORENUM *phEnum,
                                            mdTypeDef td, mdEvent rEvents[], ULONG cMax,
                                            ULONG *pcEvents);
    HRESULT (STDMETHODCALLTYPE *GetEventProps)(IMetaDataImport *self, mdEvent ev,
                                               mdTypeDef *pClass, LPCWSTR szEvent,
                                               ULONG cchEvent, ULONG *pchEvent,
                                               DWORD *pdwEventFlags, mdToken *ptkEventType,
                                               mdMethodDef *pmdAddOn, mdMethodDef *pmdRemoveOn,
                                               mdMethodDef *pmdFire,
                                               mdMethodDef rmdOtherMethod[], ULONG cMax,
                                               ULONG *pcOtherMethod);
    HRESULT (STDMETHODCALLTYPE *EnumMethodSemantics)(IMetaDataImport *self, HCORENUM *phEnum,
                                                     mdMethodDef mb, mdToken rEventProp[],
                                                     ULONG cMax, ULONG *pcEventProp);
    HRESULT (STDMETHODCALLTYPE *GetMethodSemantics)(IMetaDataImport *self, mdMethodDef mb,
                                                    mdToken tkEventProp,
                                                    DWORD *pdwSemanticsFlags);
    HRESULT (STDMETHODCALLTYPE *GetClassLayout)(IMetaDataImport *self, mdTypeDef td,
                                                DWORD *pdwPackSize,
                                                COR_FIELD_OFFSET rFieldOffset[], ULONG cMax,
                                                ULONG *pcFieldOffset, ULONG *pulClassSize);
    HRESULT (STDMETHODCALLTYPE *GetFieldMarshal)(IMetaDataImport *self, mdToken tk,
                                                 PCCOR_SIGNATURE *ppvNativeType,
                                                 ULONG *pcbNativeType);
    HRESULT (STDMETHODCALLTYPE *GetRVA)(IMetaDataImport *self, mdToken tk, ULONG *pulCodeRVA,
                                        DWORD *pdwImplFlags);
    HRESULT (STDMETHODCALLTYPE *GetPermissionSetProps)(IMetaDataImport *self, mdPermission pm,
                                                       DWORD *pdwAction,
                                                       const void **ppvPermission,
                                                       ULONG *pcbPermission);
    HRESULT (STDMETHODCALLTYPE *GetSigFromToken)(IMetaDataImport *self, mdSignature mdSig,
                                                 PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig);
    HRESULT (STDMETHODCALLTYPE *GetModuleRefProps)(IMetaDataImport *self, mdModuleRef mur,
                                                   LPWSTR szName, ULONG cchName,
                                                   ULONG *pchName);
    HRESULT (STDMETHODCALLTYPE *EnumModuleRefs)(IMetaDataImport *self, HCORENUM *phEnum,
                                                mdModuleRef rModuleRefs[], ULONG cmax,
                                                ULONG *pcModuleRefs);
    HRESULT (STDMETHODCALLTYPE *GetTypeSpecFromToken)(IMetaDataImport *self, mdTypeSpec typespec,
                                                      PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig);
    HRESULT (STDMETHODCALLTYPE *GetNameFromToken)(IMetaDataImport *self, mdToken tk,
                                                  MDUTF8CSTR *pszUtf8NamePtr);
    HRESULT (STDMETHODCALLTYPE *EnumUnresolvedMethods)(IMetaDataImport *self, HCORENUM *phEnum,
                                                       mdToken rMethods[], ULONG cMax,
                                                       ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *GetUserString)(IMetaDataImport *self, mdString stk,
                                               LPWSTR szString, ULONG cchString,
                                               ULONG *pchString);
    HRESULT (STDMETHODCALLTYPE *GetPinvokeMap)(IMetaDataImport *self, mdToken tk,
                                               DWORD *pdwMappingFlags, LPWSTR szImportName,
                                               ULONG cchImportName, ULONG *pchImportName,
                                               mdModuleRef *pmrImportDLL);
    HRESULT (STDMETHODCALLTYPE *EnumSignatures)(IMetaDataImport *self, HCORENUM *phEnum,
                                                mdSignature rSignatures[], ULONG cmax,
                                                ULONG *pcSignatures);
    HRESULT (STDMETHODCALLTYPE *EnumTypeSpecs)(IMetaDataImport *self, HCORENUM *phEnum,
                                               mdTypeSpec rTypeSpecs[], ULONG cmax,
                                               ULONG *pcTypeSpecs);
    HRESULT (STDMETHODCALLTYPE *EnumUserStrings)(IMetaDataImport *self, HCORENUM *phEnum,
                                                 mdString rStrings[], ULONG cmax,
                                                 ULONG *pcStrings);
    HRESULT (STDMETHODCALLTYPE *GetParamForMethodIndex)(IMetaDataImport *self, mdMethodDef md,
                                                        ULONG ulParamSeq, mdParamDef *ppd);
    HRESULT (STDMETHODCALLTYPE *EnumCustomAttributes)(IMetaDataImport *self, HCORENUM *phEnum,
                                                      mdToken tk, mdToken tkType,
                                                      mdCustomAttribute rCustomAttributes[],
                                                      ULONG cMax, ULONG *pcCustomAttributes);
    HRESULT (STDMETHODCALLTYPE *GetCustomAttributeProps)(IMetaDataImport *self,
                                                         mdCustomAttribute cv, mdToken *ptkObj,
                                                         mdToken *ptkType, const void **ppBlob,
                                                         ULONG *pcbSize);
    HRESULT (STDMETHODCALLTYPE *FindTypeRef)(IMetaDataImport *self, mdToken tkResolutionScope,
                                             LPCWSTR szName, mdTypeRef *ptr);
    HRESULT (STDMETHODCALLTYPE *GetMemberProps)(IMetaDataImport *self, mdToken mb,
                                                mdTypeDef *pClass, LPWSTR szMember,
                                                ULONG cchMember, ULONG *pchMember,
                                                DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                                ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                                DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag,
                                                UVCP_CONSTANT *ppValue, ULONG *pcchValue);
    HRESULT (STDMETHODCALLTYPE *GetFieldProps)(IMetaDataImport *self, mdFieldDef mb,
                                               mdTypeDef *pClass, LPWSTR szField,
                                               ULONG cchField, ULONG *pchField, DWORD *pdwAttr,
                                               PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob,
                                               DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue,
                                               ULONG *pcchValue);
    HRESULT (STDMETHODCALLTYPE *GetPropertyProps)(IMetaDataImport *self, mdProperty prop,
                                                  mdTypeDef *pClass, LPCWSTR szProperty,
                                                  ULONG cchProperty, ULONG *pchProperty,
                                                  DWORD *pdwPropFlags, PCCOR_SIGNATURE *ppvSig,
                                                  ULONG *pbSig, DWORD *pdwCPlusTypeFlag,
                                                  UVCP_CONSTANT *ppDefaultValue,
                                                  ULONG *pcchDefaultValue,
                                                  mdMethodDef *pmdSetter,
                                                  mdMethodDef *pmdGetter,
                                                  mdMethodDef rmdOtherMethod[], ULONG cMax,
                                                  ULONG *pcOtherMethod);
    HRESULT (STDMETHODCALLTYPE *GetParamProps)(IMetaDataImport *self, mdParamDef tk,
                                               mdMethodDef *pmd, ULONG *pulSequence,
                                               LPWSTR szName, ULONG cchName, ULONG *pchName,
                                               DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag,
                                               UVCP_CONSTANT *ppValue, ULONG *pcchValue);
    HRESULT (STDMETHODCALLTYPE *GetCustomAttributeByName)(IMetaDataImport *self, mdToken tkObj,
                                                          LPCWSTR szName, const void **ppData,
                                                          ULONG *pcbData);
    BOOL (STDMETHODCALLTYPE *IsValidToken)(IMetaDataImport *self, mdToken tk);
    HRESULT (STDMETHODCALLTYPE *GetNestedClassProps)(IMetaDataImport *self,
                                                     mdTypeDef tdNestedClass,
                                                     mdTypeDef *ptdEnclosingClass);
    HRESULT (STDMETHODCALLTYPE *GetNativeCallConvFromSig)(IMetaDataImport *self,
                                                          const void *pvSig, ULONG cbSig,
                                                          ULONG *pCallConv);
    HRESULT (STDMETHODCALLTYPE *IsGlobal)(IMetaDataImport *self, mdToken pd, int *pbGlobal);
} IMetaDataImportVtbl;

/* Slots: IUnknown 3 + IMetaDataImport 62 */
CORPROF_OBJECT(IMetaDataImport, 3 + 62);
CORPROF_CHECK_SLOT(IMetaDataImportVtbl, GetScopeProps, 10);
CORPROF_CHECK_SLOT(IMetaDataImportVtbl, GetModuleFromScope, 11);
CORPROF_CHECK_SLOT(IMetaDataImportVtbl, GetTypeDefProps, 12);
CORPROF_CHECK_SLOT(IMetaDataImportVtbl, GetMethodProps, 30);
CORPROF_CHECK_SLOT(IMetaDataImportVtbl, GetNestedClassProps, 62);

/* IMetaDataImport2: the whole IMetaDataImport table, then 8 more slots. Call
 * the inherited slots as p->lpVtbl->import.GetMethodProps((IMetaDataImport *)p, ...). */
typedef struct IMetaDataImport2Vtbl {
    IMetaDataImportVtbl import;

    /* IMetaDataImport2 */
    HRESULT (STDMETHODCALLTYPE *EnumGenericParams)(IMetaDataImport2 *self, HCORENUM *phEnum,
                                                   mdToken tk,
                                                   mdGenericParam rGenericParams[],
                                                   ULONG cMax, ULONG *pcGenericParams);
    HRESULT (STDMETHODCALLTYPE *GetGenericParamProps)(IMetaDataImport2 *self, mdGenericParam gp,
                                                      ULONG *pulParamSeq, DWORD *pdwParamFlags,
                                                      mdToken *ptOwner, DWORD *reserved,
                                                      LPWSTR wzname, ULONG cchName,
                                                      ULONG *pchName);
    HRESULT (STDMETHODCALLTYPE *GetMethodSpecProps)(IMetaDataImport2 *self, mdMethodSpec mi,
                                                    mdToken *tkParent,
                                                    PCCOR_SIGNATURE *ppvSigBlob,
                                                    ULONG *pcbSigBlob);
    HRESULT (STDMETHODCALLTYPE *EnumGenericParamConstraints)(
        IMetaDataImport2 *self, HCORENUM *phEnum, mdGenericParam tk,
        mdGenericParamConstraint rGenericParamConstraints[], ULONG cMax,
        ULONG *pcGenericParamConstraints);
    HRESULT (STDMETHODCALLTYPE *GetGenericParamConstraintProps)(IMetaDataImport2 *self,
                                                                mdGenericParamConstraint gpc,
                                                                mdGenericParam *ptGenericParam,
                                                                mdToken *ptkConstraintType);
    HRESULT (STDMETHODCALLTYPE *GetPEKind)(IMetaDataImport2 *self, DWORD *pdwPEKind,
                                           DWORD *pdwMAchine);
    HRESULT (STDMETHODCALLTYPE *GetVersionString)(IMetaDataImport2 *self, LPWSTR pwzBuf,
                                                  DWORD ccBufSize, DWORD *pccBufSize);
    HRESULT (STDMETHODCALLTYPE *EnumMethodSpecs)(IMetaDataImport2 *self, HCORENUM *phEnum,
                                                 mdToken tk, mdMethodSpec rMethodSpecs[],
                                                 ULONG cMax, ULONG *pcMethodSpecs);
} IMetaDataImport2Vtbl;

CORPROF_OBJECT(IMetaDataImport2, 65 + 8);
CORPROF_CHECK_SLOT(IMetaDataImport2Vtbl, EnumGenericParams, 65);
CORPROF_CHECK_SLOT(IMetaDataImport2Vtbl, GetGenericParamProps, 66);

/* IMetaDataAssemblyImport (cor.h): QueryInterface it from an IMetaDataImport. */
typedef struct IMetaDataAssemblyImportVtbl {
    CORPROF_IUNKNOWN_SLOTS(IMetaDataAssemblyImport);

    /* IMetaDataAssemblyImport */
    HRESULT (STDMETHODCALLTYPE *GetAssemblyProps)(IMetaDataAssemblyImport *self, mdAssembly mda,
                                                  const void **ppbPublicKey,
                                                  ULONG *pcbPublicKey, ULONG *pulHashAlgId,
                                                  LPWSTR szName, ULONG cchName, ULONG *pchName,
                                                  ASSEMBLYMETADATA *pMetaData,
                                                  DWORD *pdwAssemblyFlags);
    HRESULT (STDMETHODCALLTYPE *GetAssemblyRefProps)(IMetaDataAssemblyImport *self,
                                                     mdAssemblyRef mdar,
                                                     const void **ppbPublicKeyOrToken,
                                                     ULONG *pcbPublicKeyOrToken, LPWSTR szName,
                                                     ULONG cchName, ULONG *pchName,
                                                     ASSEMBLYMETADATA *pMetaData,
                                                     const void **ppbHashValue,
                                                     ULONG *pcbHashValue,
                                                     DWORD *pdwAssemblyRefFlags);
    HRESULT (STDMETHODCALLTYPE *GetFileProps)(IMetaDataAssemblyImport *self, mdFile mdf,
                                              LPWSTR szName, ULONG cchName, ULONG *pchName,
                                              const void **ppbHashValue, ULONG *pcbHashValue,
                                              DWORD *pdwFileFlags);
    HRESULT (STDMETHODCALLTYPE *GetExportedTypeProps)(IMetaDataAssemblyImport *self,
                                                      mdExportedType mdct, LPWSTR szName,
                                                      ULONG cchName, ULONG *pchName,
                                                      mdToken *ptkImplementation,
                                                      mdTypeDef *ptkTypeDef,
                                                      DWORD *pdwExportedTypeFlags);
    HRESULT (STDMETHODCALLTYPE *GetManifestResourceProps)(IMetaDataAssemblyImport *self,
                                                          mdManifestResource mdmr,
                                                          LPWSTR szName, ULONG cchName,
                                                          ULONG *pchName,
                                                          mdToken *ptkImplementation,
                                                          DWORD *pdwOffset,
                                                          DWORD *pdwResourceFlags);
    HRESULT (STDMETHODCALLTYPE *EnumAssemblyRefs)(IMetaDataAssemblyImport *self,
                                                  HCORENUM *phEnum,
                                                  mdAssemblyRef rAssemblyRefs[], ULONG cMax,
                                                  ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumFiles)(IMetaDataAssemblyImport *self, HCORENUM *phEnum,
                                           mdFile rFiles[], ULONG cMax, ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumExportedTypes)(IMetaDataAssemblyImport *self,
                                                   HCORENUM *phEnum,
                                                   mdExportedType rExportedTypes[], ULONG cMax,
                                                   ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *EnumManifestResources)(IMetaDataAssemblyImport *self,
                                                       HCORENUM *phEnum,
                                                       mdManifestResource rManifestResources[],
                                                       ULONG cMax, ULONG *pcTokens);
    HRESULT (STDMETHODCALLTYPE *GetAssemblyFromScope)(IMetaDataAssemblyImport *self,
                                                      mdAssembly *ptkAssembly);
    HRESULT (STDMETHODCALLTYPE *FindExportedTypeByName)(IMetaDataAssemblyImport *self,
                                                        LPCWSTR szName,
                                                        mdToken tkEnclosingType,
                                                        mdExportedType *ptkExportedType);
    HRESULT (STDMETHODCALLTYPE *FindManifestResourceByName)(
        IMetaDataAssemblyImport *self, LPCWSTR szName,
        mdManifestResource *ptkManifestResource);
    void (STDMETHODCALLTYPE *CloseEnum)(IMetaDataAssemblyImport *self, HCORENUM hEnum);
    HRESULT (STDMETHODCALLTYPE *FindAssembliesByName)(IMetaDataAssemblyImport *self,
                                                      LPCWSTR szAppBase, LPCWSTR szPrivateBin,
                                                      LPCWSTR szAssemblyName,
                                                      IUnknown *ppIUnk[], ULONG cMax,
                                                      ULONG *pcAssemblies);
} IMetaDataAssemblyImportVtbl;

/* Slots: IUnknown 3 + IMetaDataAssemblyImport 14 */
CORPROF_OBJECT(IMetaDataAssemblyImport, 3 + 14);
CORPROF_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyProps, 3);
CORPROF_CHECK_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyFromScope, 12);

#endif
