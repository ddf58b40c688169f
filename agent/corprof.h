/* corprof.h -- the CoreCLR profiling API, as C declarations for the jitscope agent.
 *
 * Hand-written for this project from facts in the public dotnet/runtime sources
 * (src/coreclr/inc/corprof.idl, cor.h, corerror.xml, pal/inc/rt/palrt.h and
 * pal/inc/rt/unknwn.h): vtable slot order, parameter lists, IID values and
 * HRESULT values. No runtime header is included or needed.
 *
 * Target: CoreCLR on x86-64 Linux only. There STDMETHODCALLTYPE is the plain
 * SysV calling convention, the PAL's ULONG, DWORD and BOOL are 32 bits (ULONG
 * is not `unsigned long`), WCHAR is 16-bit UTF-16 and REFIID/REFGUID are
 * passed as pointers (a C++ `const GUID &` has the same ABI). C only.
 *
 * A COM object is a pointer to a struct whose first member points at a table
 * of function pointers (the vtable). Every slot below takes the object itself
 * as its first argument (`self`). Slot order is the ABI: the tables list every
 * method of every interface in the inheritance chain, in declaration order,
 * and the layouts are checked at the bottom of this file with static asserts
 * (slot counts and the position of the slots the agent calls).
 *
 * Included interfaces:
 *   IUnknown, IClassFactory
 *   ICorProfilerCallback .. ICorProfilerCallback11 (one flat table, 98 slots)
 *   ICorProfilerInfo .. ICorProfilerInfo10 (one flat table, 99 slots), and
 *     ICorProfilerInfo12 (the Info10 table followed by the Info11/12 slots)
 *   ICorProfilerModuleEnum, ICorProfilerFunctionEnum, ICorProfilerThreadEnum,
 *     ICorProfilerObjectEnum, ICorProfilerMethodEnum
 *   ICorProfilerFunctionControl, IMethodMalloc,
 *     ICorProfilerAssemblyReferenceProvider (used in Callback4/6, Info signatures)
 *   IMetaDataImport (65 slots), IMetaDataImport2 (IMetaDataImport + 8 slots),
 *     IMetaDataAssemblyImport (17 slots)
 * Not included: ICorProfilerInfo13..15 tables (only their IIDs), IMetaDataEmit,
 *   the rest of cor.h.
 */
#ifndef JITSCOPE_CORPROF_H
#define JITSCOPE_CORPROF_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "corprof.h describes the CoreCLR ABI of x86-64 Linux only"
#endif

#define STDMETHODCALLTYPE /* SysV x86-64: the default convention */

#if defined(__GNUC__)
#define CORPROF_UNUSED __attribute__((unused))
#else
#define CORPROF_UNUSED
#endif

/* ------------------------------------------------------------------------ */
/* Basic Windows/PAL types (x86-64 Linux sizes)                             */
/* ------------------------------------------------------------------------ */

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef uint32_t ULONG32;
typedef int32_t LONG;
typedef uint32_t DWORD;
typedef int32_t BOOL;
typedef uint8_t BYTE;
typedef uint16_t USHORT;
typedef uint32_t UINT;
typedef uint8_t UINT8;
typedef uint32_t UINT32;
typedef uint64_t UINT64;
typedef uint16_t WCHAR;            /* UTF-16 code unit (char16_t in the runtime) */
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;
typedef uintptr_t ULONG_PTR;
typedef uintptr_t UINT_PTR;
typedef uintptr_t SIZE_T;          /* the PAL defines SIZE_T as ULONG_PTR */
typedef void *PVOID;
typedef void *HANDLE;
typedef const BYTE *LPCBYTE;
typedef BYTE *LPBYTE;

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;

typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFGUID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *LPCGUID;

/* ------------------------------------------------------------------------ */
/* HRESULTs                                                                 */
/* ------------------------------------------------------------------------ */

#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)

/* palrt.h */
#define S_OK ((HRESULT)0x00000000)
#define S_FALSE ((HRESULT)0x00000001)
#define E_NOTIMPL ((HRESULT)0x80004001u)
#define E_NOINTERFACE ((HRESULT)0x80004002u)
#define E_POINTER ((HRESULT)0x80004003u)
#define E_ABORT ((HRESULT)0x80004004u)
#define E_FAIL ((HRESULT)0x80004005u)
#define E_UNEXPECTED ((HRESULT)0x8000FFFFu)
#define E_ACCESSDENIED ((HRESULT)0x80070005u)
#define E_OUTOFMEMORY ((HRESULT)0x8007000Eu)
#define E_INVALIDARG ((HRESULT)0x80070057u)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110u)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111u)

/* corerror.xml, profiler range (0x801313xx) */
#define CORPROF_E_FUNCTION_NOT_COMPILED ((HRESULT)0x80131350u)
#define CORPROF_E_DATAINCOMPLETE ((HRESULT)0x80131351u)
#define CORPROF_E_FUNCTION_NOT_IL ((HRESULT)0x80131354u)
#define CORPROF_E_NOT_MANAGED_THREAD ((HRESULT)0x80131355u)
#define CORPROF_E_CALL_ONLY_FROM_INIT ((HRESULT)0x80131356u)
#define CORPROF_E_NOT_YET_AVAILABLE ((HRESULT)0x8013135Bu)
#define CORPROF_E_TYPE_IS_PARAMETERIZED ((HRESULT)0x8013135Cu)
#define CORPROF_E_FUNCTION_IS_PARAMETERIZED ((HRESULT)0x8013135Du)
#define CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD ((HRESULT)0x8013135Eu)
#define CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX ((HRESULT)0x8013135Fu)
#define CORPROF_E_STACKSNAPSHOT_UNSAFE ((HRESULT)0x80131360u)
#define CORPROF_E_STACKSNAPSHOT_ABORTED ((HRESULT)0x80131361u)
#define CORPROF_E_LITERALS_HAVE_NO_ADDRESS ((HRESULT)0x80131362u)
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE ((HRESULT)0x80131363u)
#define CORPROF_E_ASYNCHRONOUS_UNSAFE ((HRESULT)0x80131364u)
#define CORPROF_E_CLASSID_IS_ARRAY ((HRESULT)0x80131365u)
#define CORPROF_E_CLASSID_IS_COMPOSITE ((HRESULT)0x80131366u)
#define CORPROF_E_PROFILER_DETACHING ((HRESULT)0x80131367u)
#define CORPROF_E_PROFILER_NOT_ATTACHABLE ((HRESULT)0x80131368u)
#define CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT ((HRESULT)0x80131369u)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE ((HRESULT)0x8013136Au)
#define CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER ((HRESULT)0x8013136Bu)
#define CORPROF_E_IPC_FAILED ((HRESULT)0x8013136Cu)
#define CORPROF_E_PROFILEE_PROCESS_NOT_FOUND ((HRESULT)0x8013136Du)
#define CORPROF_E_CALLBACK3_REQUIRED ((HRESULT)0x8013136Eu)
#define CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER ((HRESULT)0x8013136Fu)
#define CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT ((HRESULT)0x80131370u)
#define CORPROF_E_RUNTIME_UNINITIALIZED ((HRESULT)0x80131371u)
#define CORPROF_E_IMMUTABLE_FLAGS_SET ((HRESULT)0x80131372u)
#define CORPROF_E_PROFILER_NOT_YET_INITIALIZED ((HRESULT)0x80131373u)
#define CORPROF_E_INCONSISTENT_WITH_FLAGS ((HRESULT)0x80131374u)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375u)
#define CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE ((HRESULT)0x80131376u)
#define CORPROF_E_DEBUGGING_DISABLED ((HRESULT)0x80131378u)
#define CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC ((HRESULT)0x80131379u)
#define CORPROF_E_MODULE_IS_DYNAMIC ((HRESULT)0x8013137Au)
#define CORPROF_E_CALLBACK4_REQUIRED ((HRESULT)0x8013137Bu)
#define CORPROF_E_REJIT_NOT_ENABLED ((HRESULT)0x8013137Cu)
#define CORPROF_E_FUNCTION_IS_COLLECTIBLE ((HRESULT)0x8013137Eu)
#define CORPROF_E_CALLBACK6_REQUIRED ((HRESULT)0x80131380u)
#define CORPROF_E_CALLBACK7_REQUIRED ((HRESULT)0x80131382u)
#define CORPROF_E_REJIT_INLINING_DISABLED ((HRESULT)0x80131383u)
#define CORPROF_E_SUSPENSION_IN_PROGRESS ((HRESULT)0x80131388u)

/* ------------------------------------------------------------------------ */
/* Metadata tokens and signatures (corhdr.h)                                */
/* ------------------------------------------------------------------------ */

typedef uint32_t mdToken;
typedef mdToken mdModule;
typedef mdToken mdTypeRef;
typedef mdToken mdTypeDef;
typedef mdToken mdFieldDef;
typedef mdToken mdMethodDef;
typedef mdToken mdParamDef;
typedef mdToken mdInterfaceImpl;
typedef mdToken mdMemberRef;
typedef mdToken mdCustomAttribute;
typedef mdToken mdPermission;
typedef mdToken mdSignature;
typedef mdToken mdEvent;
typedef mdToken mdProperty;
typedef mdToken mdModuleRef;
typedef mdToken mdTypeSpec;
typedef mdToken mdAssembly;
typedef mdToken mdAssemblyRef;
typedef mdToken mdFile;
typedef mdToken mdExportedType;
typedef mdToken mdManifestResource;
typedef mdToken mdGenericParam;
typedef mdToken mdMethodSpec;
typedef mdToken mdGenericParamConstraint;
typedef mdToken mdString;

/* Token type is the top byte, the row id the low 24 bits. */
typedef enum CorTokenType {
    mdtModule = 0x00000000,
    mdtTypeRef = 0x01000000,
    mdtTypeDef = 0x02000000,
    mdtFieldDef = 0x04000000,
    mdtMethodDef = 0x06000000,
    mdtParamDef = 0x08000000,
    mdtInterfaceImpl = 0x09000000,
    mdtMemberRef = 0x0a000000,
    mdtCustomAttribute = 0x0c000000,
    mdtPermission = 0x0e000000,
    mdtSignature = 0x11000000,
    mdtEvent = 0x14000000,
    mdtProperty = 0x17000000,
    mdtModuleRef = 0x1a000000,
    mdtTypeSpec = 0x1b000000,
    mdtAssembly = 0x20000000,
    mdtAssemblyRef = 0x23000000,
    mdtFile = 0x26000000,
    mdtExportedType = 0x27000000,
    mdtManifestResource = 0x28000000,
    mdtGenericParam = 0x2a000000,
    mdtMethodSpec = 0x2b000000,
    mdtGenericParamConstraint = 0x2c000000,
    mdtString = 0x70000000
} CorTokenType;
#define mdTokenNil ((mdToken)0)
#define TypeFromToken(tk) ((uint32_t)(tk) & 0xff000000u)
#define RidFromToken(tk) ((uint32_t)(tk) & 0x00ffffffu)

typedef uint8_t COR_SIGNATURE;
typedef COR_SIGNATURE *PCOR_SIGNATURE;
typedef const COR_SIGNATURE *PCCOR_SIGNATURE;
typedef void *HCORENUM;            /* metadata enumeration handle */
typedef const char *MDUTF8CSTR;
typedef const void *UVCP_CONSTANT;

/* CorElementType is a C++ enum (4 bytes) in corhdr.h; its values: */
typedef uint32_t CorElementType;
#define ELEMENT_TYPE_END 0x00u
#define ELEMENT_TYPE_VOID 0x01u
#define ELEMENT_TYPE_BOOLEAN 0x02u
#define ELEMENT_TYPE_CHAR 0x03u
#define ELEMENT_TYPE_I1 0x04u
#define ELEMENT_TYPE_U1 0x05u
#define ELEMENT_TYPE_I2 0x06u
#define ELEMENT_TYPE_U2 0x07u
#define ELEMENT_TYPE_I4 0x08u
#define ELEMENT_TYPE_U4 0x09u
#define ELEMENT_TYPE_I8 0x0au
#define ELEMENT_TYPE_U8 0x0bu
#define ELEMENT_TYPE_R4 0x0cu
#define ELEMENT_TYPE_R8 0x0du
#define ELEMENT_TYPE_STRING 0x0eu
#define ELEMENT_TYPE_PTR 0x0fu
#define ELEMENT_TYPE_BYREF 0x10u
#define ELEMENT_TYPE_VALUETYPE 0x11u
#define ELEMENT_TYPE_CLASS 0x12u
#define ELEMENT_TYPE_VAR 0x13u
#define ELEMENT_TYPE_ARRAY 0x14u
#define ELEMENT_TYPE_GENERICINST 0x15u
#define ELEMENT_TYPE_TYPEDBYREF 0x16u
#define ELEMENT_TYPE_I 0x18u
#define ELEMENT_TYPE_U 0x19u
#define ELEMENT_TYPE_FNPTR 0x1bu
#define ELEMENT_TYPE_OBJECT 0x1cu
#define ELEMENT_TYPE_SZARRAY 0x1du
#define ELEMENT_TYPE_MVAR 0x1eu
#define ELEMENT_TYPE_CMOD_REQD 0x1fu
#define ELEMENT_TYPE_CMOD_OPT 0x20u
#define ELEMENT_TYPE_INTERNAL 0x21u
#define ELEMENT_TYPE_MODIFIER 0x40u
#define ELEMENT_TYPE_SENTINEL 0x41u
#define ELEMENT_TYPE_PINNED 0x45u

/* CorOpenFlags: the only values GetModuleMetaData accepts. */
enum CorOpenFlagsValues { ofRead = 0x00000000, ofWrite = 0x00000001 };

/* cor.h assembly metadata */
typedef struct OSINFO {
    DWORD dwOSPlatformId;
    DWORD dwOSMajorVersion;
    DWORD dwOSMinorVersion;
} OSINFO;

typedef struct ASSEMBLYMETADATA {
    USHORT usMajorVersion;
    USHORT usMinorVersion;
    USHORT usBuildNumber;
    USHORT usRevisionNumber;
    LPWSTR szLocale;
    ULONG cbLocale;                /* in: buffer size in WCHARs; out: actual */
    DWORD *rProcessor;
    ULONG ulProcessor;
    OSINFO *rOS;
    ULONG ulOS;
} ASSEMBLYMETADATA;

/* ------------------------------------------------------------------------ */
/* Profiler IDs and plain data types (corprof.idl)                          */
/* ------------------------------------------------------------------------ */

typedef uintptr_t ProcessID;
typedef uintptr_t AssemblyID;
typedef uintptr_t AppDomainID;
typedef uintptr_t ModuleID;
typedef uintptr_t ClassID;
typedef uintptr_t ThreadID;
typedef uintptr_t ContextID;
typedef uintptr_t FunctionID;
typedef uintptr_t ObjectID;
typedef uintptr_t GCHandleID;
typedef uintptr_t COR_PRF_ELT_INFO;
typedef uintptr_t ReJITID;
typedef uintptr_t COR_PRF_FRAME_INFO; /* opaque, valid only inside its callback */

typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;

typedef struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL fAccurate;
} COR_IL_MAP;

/* Special COR_DEBUG_IL_TO_NATIVE_MAP.ilOffset values. */
typedef enum CorDebugIlToNativeMappingTypes {
    NO_MAPPING = -1,
    PROLOG = -2,
    EPILOG = -3
} CorDebugIlToNativeMappingTypes;

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef enum COR_PRF_SNAPSHOT_INFO {
    COR_PRF_SNAPSHOT_DEFAULT = 0x0,
    COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
    COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2
} COR_PRF_SNAPSHOT_INFO;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1]; /* numRanges entries */
} COR_PRF_FUNCTION_ARGUMENT_INFO;

/* One contiguous block of native code. */
typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

typedef enum COR_PRF_STATIC_TYPE {
    COR_PRF_FIELD_NOT_A_STATIC = 0x0,
    COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
    COR_PRF_FIELD_THREAD_STATIC = 0x2,
    COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
    COR_PRF_FIELD_RVA_STATIC = 0x8
} COR_PRF_STATIC_TYPE;

typedef struct COR_PRF_FUNCTION {
    FunctionID functionId;
    ReJITID reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
    void *pbPublicKeyOrToken;
    ULONG cbPublicKeyOrToken;
    LPCWSTR szName;
    ASSEMBLYMETADATA *pMetaData;
    void *pbHashValue;
    ULONG cbHashValue;
    DWORD dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

typedef struct COR_PRF_METHOD {
    ModuleID moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

/* ------------------------------------------------------------------------ */
/* Event masks                                                              */
/*                                                                          */
/* In corprof.idl these are enums, but COR_PRF_MONITOR has values above     */
/* INT_MAX (0x80000000), which a C11 enum cannot hold portably, so both     */
/* masks are unsigned constants of the DWORD type SetEventMask(2) takes.    */
/* ------------------------------------------------------------------------ */

typedef DWORD COR_PRF_MONITOR;
#define COR_PRF_MONITOR_NONE 0x00000000u
#define COR_PRF_MONITOR_FUNCTION_UNLOADS 0x00000001u
#define COR_PRF_MONITOR_CLASS_LOADS 0x00000002u
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_ASSEMBLY_LOADS 0x00000008u
#define COR_PRF_MONITOR_APPDOMAIN_LOADS 0x00000010u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_MONITOR_EXCEPTIONS 0x00000040u
#define COR_PRF_MONITOR_GC 0x00000080u
#define COR_PRF_MONITOR_OBJECT_ALLOCATED 0x00000100u
#define COR_PRF_MONITOR_THREADS 0x00000200u
#define COR_PRF_MONITOR_REMOTING 0x00000400u
#define COR_PRF_MONITOR_CODE_TRANSITIONS 0x00000800u
#define COR_PRF_MONITOR_ENTERLEAVE 0x00001000u
#define COR_PRF_MONITOR_CCW 0x00002000u
#define COR_PRF_MONITOR_REMOTING_COOKIE (0x00004000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_REMOTING_ASYNC (0x00008000u | COR_PRF_MONITOR_REMOTING)
#define COR_PRF_MONITOR_SUSPENDS 0x00010000u
#define COR_PRF_MONITOR_CACHE_SEARCHES 0x00020000u
#define COR_PRF_ENABLE_REJIT 0x00040000u
#define COR_PRF_ENABLE_INPROC_DEBUGGING 0x00080000u
#define COR_PRF_ENABLE_JIT_MAPS 0x00100000u
#define COR_PRF_DISABLE_INLINING 0x00200000u
#define COR_PRF_DISABLE_OPTIMIZATIONS 0x00400000u
#define COR_PRF_ENABLE_OBJECT_ALLOCATED 0x00800000u
#define COR_PRF_MONITOR_CLR_EXCEPTIONS 0x01000000u
#define COR_PRF_MONITOR_ALL 0x0107FFFFu
#define COR_PRF_ENABLE_FUNCTION_ARGS 0x02000000u
#define COR_PRF_ENABLE_FUNCTION_RETVAL 0x04000000u
#define COR_PRF_ENABLE_FRAME_INFO 0x08000000u
#define COR_PRF_ENABLE_STACK_SNAPSHOT 0x10000000u
#define COR_PRF_USE_PROFILE_IMAGES 0x20000000u
#define COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST 0x40000000u
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES 0x80000000u
#define COR_PRF_ALL 0x8FFFFFFFu
#define COR_PRF_REQUIRE_PROFILE_IMAGE \
    (COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | \
     COR_PRF_MONITOR_ENTERLEAVE)
/* The only low flags a profiler that attached to a running process may set. */
#define COR_PRF_ALLOWABLE_AFTER_ATTACH \
    (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | \
     COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_APPDOMAIN_LOADS | \
     COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC | \
     COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | \
     COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_JIT_COMPILATION | \
     COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS | \
     COR_PRF_ENABLE_REJIT)
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER \
    (COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS | \
     COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS | \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION | \
     COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | \
     COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_CODE_TRANSITIONS | \
     COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS | \
     COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | \
     COR_PRF_DISABLE_OPTIMIZATIONS | COR_PRF_ENABLE_OBJECT_ALLOCATED | \
     COR_PRF_MONITOR_CLR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT | \
     COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES)
/* Flags that may only be set from Initialize (changing them later fails, and
 * having set them makes RequestProfilerDetach fail with IMMUTABLE_FLAGS_SET). */
#define COR_PRF_MONITOR_IMMUTABLE \
    (COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING | \
     COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC | \
     COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS | \
     COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_FUNCTION_ARGS | \
     COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO | \
     COR_PRF_USE_PROFILE_IMAGES | \
     COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST | \
     COR_PRF_DISABLE_ALL_NGEN_IMAGES)

/* High mask, second argument of SetEventMask2 (ICorProfilerInfo5). */
typedef DWORD COR_PRF_HIGH_MONITOR;
#define COR_PRF_HIGH_MONITOR_NONE 0x00000000u
#define COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES 0x00000001u /* not checked by CoreCLR */
#define COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED 0x00000002u
#define COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS 0x00000004u
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION 0x00000008u
#define COR_PRF_HIGH_BASIC_GC 0x00000010u
#define COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS 0x00000020u
#define COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE 0x00000000u
#define COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED 0x00000040u
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE 0x00000080u
#define COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED 0x00000100u
#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | \
     COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | COR_PRF_HIGH_BASIC_GC | \
     COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | \
     COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | \
     COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | \
     COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS | \
     COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC | \
     COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | \
     COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | \
     COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_MONITOR_IMMUTABLE COR_PRF_HIGH_DISABLE_TIERED_COMPILATION

/* COR_PRF_MISC: special IDs (e.g. the AssemblyID GetModuleInfo reports before
 * ModuleAttachedToAssembly). */
#define PROFILER_PARENT_UNKNOWN 0xFFFFFFFDu
#define PROFILER_GLOBAL_CLASS 0xFFFFFFFEu
#define PROFILER_GLOBAL_MODULE 0xFFFFFFFFu

/* ------------------------------------------------------------------------ */
/* Enums passed to and from callbacks (4 bytes each, checked below)         */
/* ------------------------------------------------------------------------ */

typedef enum COR_PRF_JIT_CACHE {
    COR_PRF_CACHED_FUNCTION_FOUND = 0,
    COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1
} COR_PRF_JIT_CACHE;

typedef enum COR_PRF_TRANSITION_REASON {
    COR_PRF_TRANSITION_CALL = 0,
    COR_PRF_TRANSITION_RETURN = 1
} COR_PRF_TRANSITION_REASON;

typedef enum COR_PRF_SUSPEND_REASON {
    COR_PRF_SUSPEND_OTHER = 0,
    COR_PRF_SUSPEND_FOR_GC = 1,
    COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
    COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
    COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
    COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
    COR_PRF_SUSPEND_FOR_GC_PREP = 7,
    COR_PRF_SUSPEND_FOR_REJIT = 8,
    COR_PRF_SUSPEND_FOR_PROFILER = 9
} COR_PRF_SUSPEND_REASON;

typedef enum COR_PRF_RUNTIME_TYPE {
    COR_PRF_DESKTOP_CLR = 0x1,
    COR_PRF_CORE_CLR = 0x2
} COR_PRF_RUNTIME_TYPE;

typedef enum COR_PRF_REJIT_FLAGS {
    COR_PRF_REJIT_BLOCK_INLINING = 0x1,
    COR_PRF_REJIT_INLINING_CALLBACKS = 0x2
} COR_PRF_REJIT_FLAGS;

typedef enum COR_PRF_GC_ROOT_KIND {
    COR_PRF_GC_ROOT_STACK = 1,
    COR_PRF_GC_ROOT_FINALIZER = 2,
    COR_PRF_GC_ROOT_HANDLE = 3,
    COR_PRF_GC_ROOT_OTHER = 0
} COR_PRF_GC_ROOT_KIND;

typedef enum COR_PRF_GC_ROOT_FLAGS {
    COR_PRF_GC_ROOT_PINNING = 0x1,
    COR_PRF_GC_ROOT_WEAKREF = 0x2,
    COR_PRF_GC_ROOT_INTERIOR = 0x4,
    COR_PRF_GC_ROOT_REFCOUNTED = 0x8
} COR_PRF_GC_ROOT_FLAGS;

typedef enum COR_PRF_FINALIZER_FLAGS {
    COR_PRF_FINALIZER_CRITICAL = 0x1
} COR_PRF_FINALIZER_FLAGS;

typedef enum COR_PRF_GC_GENERATION {
    COR_PRF_GC_GEN_0 = 0,
    COR_PRF_GC_GEN_1 = 1,
    COR_PRF_GC_GEN_2 = 2,
    COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
    COR_PRF_GC_PINNED_OBJECT_HEAP = 4
} COR_PRF_GC_GENERATION;

typedef struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef enum COR_PRF_CLAUSE_TYPE {
    COR_PRF_CLAUSE_NONE = 0,
    COR_PRF_CLAUSE_FILTER = 1,
    COR_PRF_CLAUSE_CATCH = 2,
    COR_PRF_CLAUSE_FINALLY = 3
} COR_PRF_CLAUSE_TYPE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

typedef enum COR_PRF_GC_REASON {
    COR_PRF_GC_INDUCED = 1,
    COR_PRF_GC_OTHER = 0
} COR_PRF_GC_REASON;

/* Bits of GetModuleInfo2's *pdwModuleFlags. */
typedef enum COR_PRF_MODULE_FLAGS {
    COR_PRF_MODULE_DISK = 0x00000001,
    COR_PRF_MODULE_NGEN = 0x00000002,
    COR_PRF_MODULE_DYNAMIC = 0x00000004,
    COR_PRF_MODULE_COLLECTIBLE = 0x00000008,
    COR_PRF_MODULE_RESOURCE = 0x00000010,
    COR_PRF_MODULE_FLAT_LAYOUT = 0x00000020,
    COR_PRF_MODULE_WINDOWS_RUNTIME = 0x00000040
} COR_PRF_MODULE_FLAGS;

typedef enum COR_PRF_CODEGEN_FLAGS {
    COR_PRF_CODEGEN_DISABLE_INLINING = 0x0001,
    COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x0002,
    COR_PRF_CODEGEN_DEBUG_INFO = 0x0003
} COR_PRF_CODEGEN_FLAGS;

/* EventPipe (ICorProfilerCallback10, ICorProfilerInfo12) */
typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef UINT64 EVENTPIPE_SESSION;

typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR *providerName;
    UINT64 keywords;
    UINT32 loggingLevel;
    const WCHAR *filterData;       /* "key1=value1;key2=value2;" or NULL */
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32 type;                   /* a COR_PRF_EVENTPIPE_PARAM_TYPE value */
    UINT32 elementType;            /* used when type is an array */
    const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
} COR_PRF_EVENT_DATA;

/* ------------------------------------------------------------------------ */
/* Function types the profiler supplies                                     */
/* ------------------------------------------------------------------------ */

typedef UINT_PTR STDMETHODCALLTYPE FunctionIDMapper(FunctionID funcId,
                                                    BOOL *pbHookFunction);
typedef UINT_PTR STDMETHODCALLTYPE FunctionIDMapper2(FunctionID funcId,
                                                     void *clientData,
                                                     BOOL *pbHookFunction);

typedef void STDMETHODCALLTYPE FunctionEnter(FunctionID funcID);
typedef void STDMETHODCALLTYPE FunctionLeave(FunctionID funcID);
typedef void STDMETHODCALLTYPE FunctionTailcall(FunctionID funcID);

typedef void STDMETHODCALLTYPE FunctionEnter2(
    FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
    COR_PRF_FUNCTION_ARGUMENT_INFO *argumentInfo);
typedef void STDMETHODCALLTYPE FunctionLeave2(
    FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
    COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void STDMETHODCALLTYPE FunctionTailcall2(
    FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);

typedef void STDMETHODCALLTYPE FunctionEnter3(FunctionIDOrClientID functionIDOrClientID);
typedef void STDMETHODCALLTYPE FunctionLeave3(FunctionIDOrClientID functionIDOrClientID);
typedef void STDMETHODCALLTYPE FunctionTailcall3(FunctionIDOrClientID functionIDOrClientID);

typedef void STDMETHODCALLTYPE FunctionEnter3WithInfo(
    FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void STDMETHODCALLTYPE FunctionLeave3WithInfo(
    FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
typedef void STDMETHODCALLTYPE FunctionTailcall3WithInfo(
    FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);

/* Called by DoStackSnapshot once per managed frame (funcId != 0) or run of
 * unmanaged frames (funcId == 0). `context` is only filled in when
 * COR_PRF_SNAPSHOT_REGISTER_CONTEXT was requested. */
typedef HRESULT STDMETHODCALLTYPE StackSnapshotCallback(
    FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
    ULONG32 contextSize, BYTE context[], void *clientData);

typedef BOOL STDMETHODCALLTYPE ObjectReferenceCallback(ObjectID root,
                                                       ObjectID *reference,
                                                       void *clientData);

/* ------------------------------------------------------------------------ */
/* Interface object types                                                   */
/* ------------------------------------------------------------------------ */

typedef struct IUnknown IUnknown;
typedef struct IClassFactory IClassFactory;
typedef struct ICorProfilerCallback11 ICorProfilerCallback11;
typedef struct ICorProfilerInfo10 ICorProfilerInfo10;
typedef struct ICorProfilerInfo12 ICorProfilerInfo12;
typedef struct ICorProfilerObjectEnum ICorProfilerObjectEnum;
typedef struct ICorProfilerFunctionEnum ICorProfilerFunctionEnum;
typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct IMethodMalloc IMethodMalloc;
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct ICorProfilerAssemblyReferenceProvider ICorProfilerAssemblyReferenceProvider;
typedef struct IMetaDataImport IMetaDataImport;
typedef struct IMetaDataImport2 IMetaDataImport2;
typedef struct IMetaDataAssemblyImport IMetaDataAssemblyImport;

/* ------------------------------------------------------------------------ */
/* IUnknown, IClassFactory                                                  */
/* ------------------------------------------------------------------------ */

typedef struct IUnknownVtbl {
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IUnknown *self, REFIID riid, void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IUnknown *self);
    ULONG (STDMETHODCALLTYPE *Release)(IUnknown *self);
} IUnknownVtbl;

struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

typedef struct IClassFactoryVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IClassFactory *self, REFIID riid, void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IClassFactory *self);
    ULONG (STDMETHODCALLTYPE *Release)(IClassFactory *self);
    /* IClassFactory */
    HRESULT (STDMETHODCALLTYPE *CreateInstance)(IClassFactory *self, IUnknown *pUnkOuter,
                                                REFIID riid, void **ppvObject);
    HRESULT (STDMETHODCALLTYPE *LockServer)(IClassFactory *self, BOOL fLock);
} IClassFactoryVtbl;

struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* ICorProfilerCallback .. ICorProfilerCallback11 (implemented by us)       */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerCallback11Vtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerCallback11 *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerCallback11 *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerCallback11 *self);

    /* ICorProfilerCallback */
    HRESULT (STDMETHODCALLTYPE *Initialize)(ICorProfilerCallback11 *self,
                                            IUnknown *pICorProfilerInfoUnk);
    HRESULT (STDMETHODCALLTYPE *Shutdown)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *AppDomainCreationStarted)(ICorProfilerCallback11 *self,
                                                          AppDomainID appDomainId);
    HRESULT (STDMETHODCALLTYPE *AppDomainCreationFinished)(ICorProfilerCallback11 *self,
                                                           AppDomainID appDomainId,
                                                           HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AppDomainShutdownStarted)(ICorProfilerCallback11 *self,
                                                          AppDomainID appDomainId);
    HRESULT (STDMETHODCALLTYPE *AppDomainShutdownFinished)(ICorProfilerCallback11 *self,
                                                           AppDomainID appDomainId,
                                                           HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AssemblyLoadStarted)(ICorProfilerCallback11 *self,
                                                     AssemblyID assemblyId);
    HRESULT (STDMETHODCALLTYPE *AssemblyLoadFinished)(ICorProfilerCallback11 *self,
                                                      AssemblyID assemblyId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *AssemblyUnloadStarted)(ICorProfilerCallback11 *self,
                                                       AssemblyID assemblyId);
    HRESULT (STDMETHODCALLTYPE *AssemblyUnloadFinished)(ICorProfilerCallback11 *self,
                                                        AssemblyID assemblyId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleLoadStarted)(ICorProfilerCallback11 *self,
                                                   ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *ModuleLoadFinished)(ICorProfilerCallback11 *self,
                                                    ModuleID moduleId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleUnloadStarted)(ICorProfilerCallback11 *self,
                                                     ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *ModuleUnloadFinished)(ICorProfilerCallback11 *self,
                                                      ModuleID moduleId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ModuleAttachedToAssembly)(ICorProfilerCallback11 *self,
                                                          ModuleID moduleId,
                                                          AssemblyID AssemblyId);
    HRESULT (STDMETHODCALLTYPE *ClassLoadStarted)(ICorProfilerCallback11 *self, ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ClassLoadFinished)(ICorProfilerCallback11 *self, ClassID classId,
                                                   HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *ClassUnloadStarted)(ICorProfilerCallback11 *self,
                                                    ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ClassUnloadFinished)(ICorProfilerCallback11 *self,
                                                     ClassID classId, HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *FunctionUnloadStarted)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *JITCompilationStarted)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId,
                                                       BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *JITCompilationFinished)(ICorProfilerCallback11 *self,
                                                        FunctionID functionId, HRESULT hrStatus,
                                                        BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *JITCachedFunctionSearchStarted)(ICorProfilerCallback11 *self,
                                                                FunctionID functionId,
                                                                BOOL *pbUseCachedFunction);
    HRESULT (STDMETHODCALLTYPE *JITCachedFunctionSearchFinished)(ICorProfilerCallback11 *self,
                                                                 FunctionID functionId,
                                                                 COR_PRF_JIT_CACHE result);
    HRESULT (STDMETHODCALLTYPE *JITFunctionPitched)(ICorProfilerCallback11 *self,
                                                    FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *JITInlining)(ICorProfilerCallback11 *self, FunctionID callerId,
                                             FunctionID calleeId, BOOL *pfShouldInline);
    HRESULT (STDMETHODCALLTYPE *ThreadCreated)(ICorProfilerCallback11 *self, ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *ThreadDestroyed)(ICorProfilerCallback11 *self, ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *ThreadAssignedToOSThread)(ICorProfilerCallback11 *self,
                                                          ThreadID managedThreadId,
                                                          DWORD osThreadId);
    HRESULT (STDMETHODCALLTYPE *RemotingClientInvocationStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingClientSendingMessage)(ICorProfilerCallback11 *self,
                                                              GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingClientReceivingReply)(ICorProfilerCallback11 *self,
                                                              GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingClientInvocationFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerReceivingMessage)(ICorProfilerCallback11 *self,
                                                                GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *RemotingServerInvocationStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerInvocationReturned)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RemotingServerSendingReply)(ICorProfilerCallback11 *self,
                                                            GUID *pCookie, BOOL fIsAsync);
    HRESULT (STDMETHODCALLTYPE *UnmanagedToManagedTransition)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId,
                                                              COR_PRF_TRANSITION_REASON reason);
    HRESULT (STDMETHODCALLTYPE *ManagedToUnmanagedTransition)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId,
                                                              COR_PRF_TRANSITION_REASON reason);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendStarted)(ICorProfilerCallback11 *self,
                                                       COR_PRF_SUSPEND_REASON suspendReason);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeSuspendAborted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeResumeStarted)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeResumeFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *RuntimeThreadSuspended)(ICorProfilerCallback11 *self,
                                                        ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *RuntimeThreadResumed)(ICorProfilerCallback11 *self,
                                                      ThreadID threadId);
    HRESULT (STDMETHODCALLTYPE *MovedReferences)(ICorProfilerCallback11 *self,
                                                 ULONG cMovedObjectIDRanges,
                                                 ObjectID oldObjectIDRangeStart[],
                                                 ObjectID newObjectIDRangeStart[],
                                                 ULONG cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *ObjectAllocated)(ICorProfilerCallback11 *self, ObjectID objectId,
                                                 ClassID classId);
    HRESULT (STDMETHODCALLTYPE *ObjectsAllocatedByClass)(ICorProfilerCallback11 *self,
                                                         ULONG cClassCount, ClassID classIds[],
                                                         ULONG cObjects[]);
    HRESULT (STDMETHODCALLTYPE *ObjectReferences)(ICorProfilerCallback11 *self, ObjectID objectId,
                                                  ClassID classId, ULONG cObjectRefs,
                                                  ObjectID objectRefIds[]);
    HRESULT (STDMETHODCALLTYPE *RootReferences)(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                ObjectID rootRefIds[]);
    HRESULT (STDMETHODCALLTYPE *ExceptionThrown)(ICorProfilerCallback11 *self,
                                                 ObjectID thrownObjectId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFunctionEnter)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFunctionLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFilterEnter)(ICorProfilerCallback11 *self,
                                                            FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchFilterLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionSearchCatcherFound)(ICorProfilerCallback11 *self,
                                                             FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionOSHandlerEnter)(ICorProfilerCallback11 *self,
                                                         UINT_PTR unused);
    HRESULT (STDMETHODCALLTYPE *ExceptionOSHandlerLeave)(ICorProfilerCallback11 *self,
                                                         UINT_PTR unused);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFunctionEnter)(ICorProfilerCallback11 *self,
                                                              FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFunctionLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFinallyEnter)(ICorProfilerCallback11 *self,
                                                             FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ExceptionUnwindFinallyLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionCatcherEnter)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId, ObjectID objectId);
    HRESULT (STDMETHODCALLTYPE *ExceptionCatcherLeave)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *COMClassicVTableCreated)(ICorProfilerCallback11 *self,
                                                         ClassID wrappedClassId,
                                                         REFGUID implementedIID, void *pVTable,
                                                         ULONG cSlots);
    HRESULT (STDMETHODCALLTYPE *COMClassicVTableDestroyed)(ICorProfilerCallback11 *self,
                                                           ClassID wrappedClassId,
                                                           REFGUID implementedIID,
                                                           void *pVTable);
    HRESULT (STDMETHODCALLTYPE *ExceptionCLRCatcherFound)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ExceptionCLRCatcherExecute)(ICorProfilerCallback11 *self);

    /* ICorProfilerCallback2 */
    HRESULT (STDMETHODCALLTYPE *ThreadNameChanged)(ICorProfilerCallback11 *self,
                                                   ThreadID threadId, ULONG cchName,
                                                   WCHAR name[]); /* not NUL-terminated */
    HRESULT (STDMETHODCALLTYPE *GarbageCollectionStarted)(ICorProfilerCallback11 *self,
                                                          int cGenerations,
                                                          BOOL generationCollected[],
                                                          COR_PRF_GC_REASON reason);
    HRESULT (STDMETHODCALLTYPE *SurvivingReferences)(ICorProfilerCallback11 *self,
                                                     ULONG cSurvivingObjectIDRanges,
                                                     ObjectID objectIDRangeStart[],
                                                     ULONG cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *GarbageCollectionFinished)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *FinalizeableObjectQueued)(ICorProfilerCallback11 *self,
                                                          DWORD finalizerFlags,
                                                          ObjectID objectID);
    HRESULT (STDMETHODCALLTYPE *RootReferences2)(ICorProfilerCallback11 *self, ULONG cRootRefs,
                                                 ObjectID rootRefIds[],
                                                 COR_PRF_GC_ROOT_KIND rootKinds[],
                                                 COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                                 UINT_PTR rootIds[]);
    HRESULT (STDMETHODCALLTYPE *HandleCreated)(ICorProfilerCallback11 *self, GCHandleID handleId,
                                               ObjectID initialObjectId);
    HRESULT (STDMETHODCALLTYPE *HandleDestroyed)(ICorProfilerCallback11 *self,
                                                 GCHandleID handleId);

    /* ICorProfilerCallback3 */
    HRESULT (STDMETHODCALLTYPE *InitializeForAttach)(ICorProfilerCallback11 *self,
                                                     IUnknown *pCorProfilerInfoUnk,
                                                     void *pvClientData, UINT cbClientData);
    HRESULT (STDMETHODCALLTYPE *ProfilerAttachComplete)(ICorProfilerCallback11 *self);
    HRESULT (STDMETHODCALLTYPE *ProfilerDetachSucceeded)(ICorProfilerCallback11 *self);

    /* ICorProfilerCallback4 */
    HRESULT (STDMETHODCALLTYPE *ReJITCompilationStarted)(ICorProfilerCallback11 *self,
                                                         FunctionID functionId, ReJITID rejitId,
                                                         BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *GetReJITParameters)(ICorProfilerCallback11 *self,
                                                    ModuleID moduleId, mdMethodDef methodId,
                                                    ICorProfilerFunctionControl *pFunctionControl);
    HRESULT (STDMETHODCALLTYPE *ReJITCompilationFinished)(ICorProfilerCallback11 *self,
                                                          FunctionID functionId, ReJITID rejitId,
                                                          HRESULT hrStatus, BOOL fIsSafeToBlock);
    HRESULT (STDMETHODCALLTYPE *ReJITError)(ICorProfilerCallback11 *self, ModuleID moduleId,
                                            mdMethodDef methodId, FunctionID functionId,
                                            HRESULT hrStatus);
    HRESULT (STDMETHODCALLTYPE *MovedReferences2)(ICorProfilerCallback11 *self,
                                                  ULONG cMovedObjectIDRanges,
                                                  ObjectID oldObjectIDRangeStart[],
                                                  ObjectID newObjectIDRangeStart[],
                                                  SIZE_T cObjectIDRangeLength[]);
    HRESULT (STDMETHODCALLTYPE *SurvivingReferences2)(ICorProfilerCallback11 *self,
                                                      ULONG cSurvivingObjectIDRanges,
                                                      ObjectID objectIDRangeStart[],
                                                      SIZE_T cObjectIDRangeLength[]);

    /* ICorProfilerCallback5 */
    HRESULT (STDMETHODCALLTYPE *ConditionalWeakTableElementReferences)(
        ICorProfilerCallback11 *self, ULONG cRootRefs, ObjectID keyRefIds[],
        ObjectID valueRefIds[], GCHandleID rootIds[]);

    /* ICorProfilerCallback6 */
    HRESULT (STDMETHODCALLTYPE *GetAssemblyReferences)(
        ICorProfilerCallback11 *self, const WCHAR *wszAssemblyPath,
        ICorProfilerAssemblyReferenceProvider *pAsmRefProvider);

    /* ICorProfilerCallback7 */
    HRESULT (STDMETHODCALLTYPE *ModuleInMemorySymbolsUpdated)(ICorProfilerCallback11 *self,
                                                              ModuleID moduleId);

    /* ICorProfilerCallback8 */
    HRESULT (STDMETHODCALLTYPE *DynamicMethodJITCompilationStarted)(ICorProfilerCallback11 *self,
                                                                    FunctionID functionId,
                                                                    BOOL fIsSafeToBlock,
                                                                    LPCBYTE pILHeader,
                                                                    ULONG cbILHeader);
    HRESULT (STDMETHODCALLTYPE *DynamicMethodJITCompilationFinished)(ICorProfilerCallback11 *self,
                                                                     FunctionID functionId,
                                                                     HRESULT hrStatus,
                                                                     BOOL fIsSafeToBlock);

    /* ICorProfilerCallback9 */
    HRESULT (STDMETHODCALLTYPE *DynamicMethodUnloaded)(ICorProfilerCallback11 *self,
                                                       FunctionID functionId);

    /* ICorProfilerCallback10 */
    HRESULT (STDMETHODCALLTYPE *EventPipeEventDelivered)(
        ICorProfilerCallback11 *self, EVENTPIPE_PROVIDER provider, DWORD eventId,
        DWORD eventVersion, ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData,
        LPCBYTE eventData, LPCGUID pActivityId, LPCGUID pRelatedActivityId,
        ThreadID eventThread, ULONG numStackFrames, UINT_PTR stackFrames[]);
    HRESULT (STDMETHODCALLTYPE *EventPipeProviderCreated)(ICorProfilerCallback11 *self,
                                                          EVENTPIPE_PROVIDER provider);

    /* ICorProfilerCallback11 */
    HRESULT (STDMETHODCALLTYPE *LoadAsNotificationOnly)(ICorProfilerCallback11 *self,
                                                        BOOL *pbNotificationOnly);
} ICorProfilerCallback11Vtbl;

struct ICorProfilerCallback11 {
    const ICorProfilerCallback11Vtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* ICorProfilerInfo .. ICorProfilerInfo10 (implemented by the runtime)      */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerInfo10Vtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerInfo10 *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerInfo10 *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerInfo10 *self);

    /* ICorProfilerInfo */
    HRESULT (STDMETHODCALLTYPE *GetClassFromObject)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                    ClassID *pClassId);
    HRESULT (STDMETHODCALLTYPE *GetClassFromToken)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdTypeDef typeDef, ClassID *pClassId);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo)(ICorProfilerInfo10 *self, FunctionID functionId,
                                             LPCBYTE *pStart, ULONG *pcSize);
    HRESULT (STDMETHODCALLTYPE *GetEventMask)(ICorProfilerInfo10 *self, DWORD *pdwEvents);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                   FunctionID *pFunctionId);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromToken)(ICorProfilerInfo10 *self,
                                                      ModuleID moduleId, mdToken token,
                                                      FunctionID *pFunctionId);
    HRESULT (STDMETHODCALLTYPE *GetHandleFromThread)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                     HANDLE *phThread);
    HRESULT (STDMETHODCALLTYPE *GetObjectSize)(ICorProfilerInfo10 *self, ObjectID objectId,
                                               ULONG *pcSize);
    HRESULT (STDMETHODCALLTYPE *IsArrayClass)(ICorProfilerInfo10 *self, ClassID classId,
                                              CorElementType *pBaseElemType,
                                              ClassID *pBaseClassId, ULONG *pcRank);
    HRESULT (STDMETHODCALLTYPE *GetThreadInfo)(ICorProfilerInfo10 *self, ThreadID threadId,
                                               DWORD *pdwWin32ThreadId);
    HRESULT (STDMETHODCALLTYPE *GetCurrentThreadID)(ICorProfilerInfo10 *self,
                                                    ThreadID *pThreadId);
    HRESULT (STDMETHODCALLTYPE *GetClassIDInfo)(ICorProfilerInfo10 *self, ClassID classId,
                                                ModuleID *pModuleId, mdTypeDef *pTypeDefToken);
    HRESULT (STDMETHODCALLTYPE *GetFunctionInfo)(ICorProfilerInfo10 *self, FunctionID functionId,
                                                 ClassID *pClassId, ModuleID *pModuleId,
                                                 mdToken *pToken);
    HRESULT (STDMETHODCALLTYPE *SetEventMask)(ICorProfilerInfo10 *self, DWORD dwEvents);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks)(ICorProfilerInfo10 *self,
                                                            FunctionEnter *pFuncEnter,
                                                            FunctionLeave *pFuncLeave,
                                                            FunctionTailcall *pFuncTailcall);
    HRESULT (STDMETHODCALLTYPE *SetFunctionIDMapper)(ICorProfilerInfo10 *self,
                                                     FunctionIDMapper *pFunc);
    HRESULT (STDMETHODCALLTYPE *GetTokenAndMetaDataFromFunction)(ICorProfilerInfo10 *self,
                                                                 FunctionID functionId,
                                                                 REFIID riid,
                                                                 IUnknown **ppImport,
                                                                 mdToken *pToken);
    HRESULT (STDMETHODCALLTYPE *GetModuleInfo)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                               LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                               ULONG *pcchName, WCHAR szName[],
                                               AssemblyID *pAssemblyId);
    HRESULT (STDMETHODCALLTYPE *GetModuleMetaData)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   DWORD dwOpenFlags, REFIID riid,
                                                   IUnknown **ppOut);
    HRESULT (STDMETHODCALLTYPE *GetILFunctionBody)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdMethodDef methodId,
                                                   LPCBYTE *ppMethodHeader,
                                                   ULONG *pcbMethodSize);
    HRESULT (STDMETHODCALLTYPE *GetILFunctionBodyAllocator)(ICorProfilerInfo10 *self,
                                                            ModuleID moduleId,
                                                            IMethodMalloc **ppMalloc);
    HRESULT (STDMETHODCALLTYPE *SetILFunctionBody)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                   mdMethodDef methodid,
                                                   LPCBYTE pbNewILMethodHeader);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainInfo)(ICorProfilerInfo10 *self,
                                                  AppDomainID appDomainId, ULONG cchName,
                                                  ULONG *pcchName, WCHAR szName[],
                                                  ProcessID *pProcessId);
    HRESULT (STDMETHODCALLTYPE *GetAssemblyInfo)(ICorProfilerInfo10 *self, AssemblyID assemblyId,
                                                 ULONG cchName, ULONG *pcchName,
                                                 WCHAR szName[], AppDomainID *pAppDomainId,
                                                 ModuleID *pModuleId);
    HRESULT (STDMETHODCALLTYPE *SetFunctionReJIT)(ICorProfilerInfo10 *self,
                                                  FunctionID functionId);
    HRESULT (STDMETHODCALLTYPE *ForceGC)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *SetILInstrumentedCodeMap)(ICorProfilerInfo10 *self,
                                                          FunctionID functionId, BOOL fStartJit,
                                                          ULONG cILMapEntries,
                                                          COR_IL_MAP rgILMapEntries[]);
    HRESULT (STDMETHODCALLTYPE *GetInprocInspectionInterface)(ICorProfilerInfo10 *self,
                                                              IUnknown **ppicd);
    HRESULT (STDMETHODCALLTYPE *GetInprocInspectionIThisThread)(ICorProfilerInfo10 *self,
                                                                IUnknown **ppicd);
    HRESULT (STDMETHODCALLTYPE *GetThreadContext)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                  ContextID *pContextId);
    HRESULT (STDMETHODCALLTYPE *BeginInprocDebugging)(ICorProfilerInfo10 *self,
                                                      BOOL fThisThreadOnly,
                                                      DWORD *pdwProfilerContext);
    HRESULT (STDMETHODCALLTYPE *EndInprocDebugging)(ICorProfilerInfo10 *self,
                                                    DWORD dwProfilerContext);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping)(ICorProfilerInfo10 *self,
                                                      FunctionID functionId, ULONG32 cMap,
                                                      ULONG32 *pcMap,
                                                      COR_DEBUG_IL_TO_NATIVE_MAP map[]);

    /* ICorProfilerInfo2 */
    HRESULT (STDMETHODCALLTYPE *DoStackSnapshot)(ICorProfilerInfo10 *self, ThreadID thread,
                                                 StackSnapshotCallback *callback,
                                                 ULONG32 infoFlags, void *clientData,
                                                 BYTE context[], ULONG32 contextSize);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks2)(ICorProfilerInfo10 *self,
                                                             FunctionEnter2 *pFuncEnter,
                                                             FunctionLeave2 *pFuncLeave,
                                                             FunctionTailcall2 *pFuncTailcall);
    HRESULT (STDMETHODCALLTYPE *GetFunctionInfo2)(ICorProfilerInfo10 *self, FunctionID funcId,
                                                  COR_PRF_FRAME_INFO frameInfo,
                                                  ClassID *pClassId, ModuleID *pModuleId,
                                                  mdToken *pToken, ULONG32 cTypeArgs,
                                                  ULONG32 *pcTypeArgs, ClassID typeArgs[]);
    HRESULT (STDMETHODCALLTYPE *GetStringLayout)(ICorProfilerInfo10 *self,
                                                 ULONG *pBufferLengthOffset,
                                                 ULONG *pStringLengthOffset,
                                                 ULONG *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *GetClassLayout)(ICorProfilerInfo10 *self, ClassID classID,
                                                COR_FIELD_OFFSET rFieldOffset[],
                                                ULONG cFieldOffset, ULONG *pcFieldOffset,
                                                ULONG *pulClassSize);
    HRESULT (STDMETHODCALLTYPE *GetClassIDInfo2)(ICorProfilerInfo10 *self, ClassID classId,
                                                 ModuleID *pModuleId, mdTypeDef *pTypeDefToken,
                                                 ClassID *pParentClassId, ULONG32 cNumTypeArgs,
                                                 ULONG32 *pcNumTypeArgs, ClassID typeArgs[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo2)(ICorProfilerInfo10 *self, FunctionID functionID,
                                              ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);
    HRESULT (STDMETHODCALLTYPE *GetClassFromTokenAndTypeArgs)(ICorProfilerInfo10 *self,
                                                              ModuleID moduleID,
                                                              mdTypeDef typeDef,
                                                              ULONG32 cTypeArgs,
                                                              ClassID typeArgs[],
                                                              ClassID *pClassID);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromTokenAndTypeArgs)(ICorProfilerInfo10 *self,
                                                                 ModuleID moduleID,
                                                                 mdMethodDef funcDef,
                                                                 ClassID classId,
                                                                 ULONG32 cTypeArgs,
                                                                 ClassID typeArgs[],
                                                                 FunctionID *pFunctionID);
    HRESULT (STDMETHODCALLTYPE *EnumModuleFrozenObjects)(ICorProfilerInfo10 *self,
                                                         ModuleID moduleID,
                                                         ICorProfilerObjectEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetArrayObjectInfo)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                    ULONG32 cDimensions,
                                                    ULONG32 pDimensionSizes[],
                                                    int pDimensionLowerBounds[],
                                                    BYTE **ppData);
    HRESULT (STDMETHODCALLTYPE *GetBoxClassLayout)(ICorProfilerInfo10 *self, ClassID classId,
                                                   ULONG32 *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *GetThreadAppDomain)(ICorProfilerInfo10 *self, ThreadID threadId,
                                                    AppDomainID *pAppDomainId);
    HRESULT (STDMETHODCALLTYPE *GetRVAStaticAddress)(ICorProfilerInfo10 *self, ClassID classId,
                                                     mdFieldDef fieldToken, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainStaticAddress)(ICorProfilerInfo10 *self,
                                                           ClassID classId,
                                                           mdFieldDef fieldToken,
                                                           AppDomainID appDomainId,
                                                           void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetThreadStaticAddress)(ICorProfilerInfo10 *self,
                                                        ClassID classId, mdFieldDef fieldToken,
                                                        ThreadID threadId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetContextStaticAddress)(ICorProfilerInfo10 *self,
                                                         ClassID classId,
                                                         mdFieldDef fieldToken,
                                                         ContextID contextId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetStaticFieldInfo)(ICorProfilerInfo10 *self, ClassID classId,
                                                    mdFieldDef fieldToken,
                                                    COR_PRF_STATIC_TYPE *pFieldInfo);
    HRESULT (STDMETHODCALLTYPE *GetGenerationBounds)(ICorProfilerInfo10 *self,
                                                     ULONG cObjectRanges, ULONG *pcObjectRanges,
                                                     COR_PRF_GC_GENERATION_RANGE ranges[]);
    HRESULT (STDMETHODCALLTYPE *GetObjectGeneration)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                     COR_PRF_GC_GENERATION_RANGE *range);
    HRESULT (STDMETHODCALLTYPE *GetNotifiedExceptionClauseInfo)(ICorProfilerInfo10 *self,
                                                                COR_PRF_EX_CLAUSE_INFO *pinfo);

    /* ICorProfilerInfo3 */
    HRESULT (STDMETHODCALLTYPE *EnumJITedFunctions)(ICorProfilerInfo10 *self,
                                                    ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *RequestProfilerDetach)(ICorProfilerInfo10 *self,
                                                       DWORD dwExpectedCompletionMilliseconds);
    HRESULT (STDMETHODCALLTYPE *SetFunctionIDMapper2)(ICorProfilerInfo10 *self,
                                                      FunctionIDMapper2 *pFunc,
                                                      void *clientData);
    HRESULT (STDMETHODCALLTYPE *GetStringLayout2)(ICorProfilerInfo10 *self,
                                                  ULONG *pStringLengthOffset,
                                                  ULONG *pBufferOffset);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks3)(ICorProfilerInfo10 *self,
                                                             FunctionEnter3 *pFuncEnter3,
                                                             FunctionLeave3 *pFuncLeave3,
                                                             FunctionTailcall3 *pFuncTailcall3);
    HRESULT (STDMETHODCALLTYPE *SetEnterLeaveFunctionHooks3WithInfo)(
        ICorProfilerInfo10 *self, FunctionEnter3WithInfo *pFuncEnter3WithInfo,
        FunctionLeave3WithInfo *pFuncLeave3WithInfo,
        FunctionTailcall3WithInfo *pFuncTailcall3WithInfo);
    HRESULT (STDMETHODCALLTYPE *GetFunctionEnter3Info)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId,
                                                       COR_PRF_ELT_INFO eltInfo,
                                                       COR_PRF_FRAME_INFO *pFrameInfo,
                                                       ULONG *pcbArgumentInfo,
                                                       COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo);
    HRESULT (STDMETHODCALLTYPE *GetFunctionLeave3Info)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId,
                                                       COR_PRF_ELT_INFO eltInfo,
                                                       COR_PRF_FRAME_INFO *pFrameInfo,
                                                       COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange);
    HRESULT (STDMETHODCALLTYPE *GetFunctionTailcall3Info)(ICorProfilerInfo10 *self,
                                                          FunctionID functionId,
                                                          COR_PRF_ELT_INFO eltInfo,
                                                          COR_PRF_FRAME_INFO *pFrameInfo);
    HRESULT (STDMETHODCALLTYPE *EnumModules)(ICorProfilerInfo10 *self,
                                             ICorProfilerModuleEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetRuntimeInformation)(ICorProfilerInfo10 *self,
                                                       USHORT *pClrInstanceId,
                                                       COR_PRF_RUNTIME_TYPE *pRuntimeType,
                                                       USHORT *pMajorVersion,
                                                       USHORT *pMinorVersion,
                                                       USHORT *pBuildNumber,
                                                       USHORT *pQFEVersion,
                                                       ULONG cchVersionString,
                                                       ULONG *pcchVersionString,
                                                       WCHAR szVersionString[]);
    HRESULT (STDMETHODCALLTYPE *GetThreadStaticAddress2)(ICorProfilerInfo10 *self,
                                                         ClassID classId,
                                                         mdFieldDef fieldToken,
                                                         AppDomainID appDomainId,
                                                         ThreadID threadId, void **ppAddress);
    HRESULT (STDMETHODCALLTYPE *GetAppDomainsContainingModule)(ICorProfilerInfo10 *self,
                                                               ModuleID moduleId,
                                                               ULONG32 cAppDomainIds,
                                                               ULONG32 *pcAppDomainIds,
                                                               AppDomainID appDomainIds[]);
    HRESULT (STDMETHODCALLTYPE *GetModuleInfo2)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                                ULONG *pcchName, WCHAR szName[],
                                                AssemblyID *pAssemblyId, DWORD *pdwModuleFlags);

    /* ICorProfilerInfo4 */
    HRESULT (STDMETHODCALLTYPE *EnumThreads)(ICorProfilerInfo10 *self,
                                             ICorProfilerThreadEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *InitializeCurrentThread)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *RequestReJIT)(ICorProfilerInfo10 *self, ULONG cFunctions,
                                              ModuleID moduleIds[], mdMethodDef methodIds[]);
    HRESULT (STDMETHODCALLTYPE *RequestRevert)(ICorProfilerInfo10 *self, ULONG cFunctions,
                                               ModuleID moduleIds[], mdMethodDef methodIds[],
                                               HRESULT status[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo3)(ICorProfilerInfo10 *self, FunctionID functionID,
                                              ReJITID reJitId, ULONG32 cCodeInfos,
                                              ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP2)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                    FunctionID *pFunctionId,
                                                    ReJITID *pReJitId);
    HRESULT (STDMETHODCALLTYPE *GetReJITIDs)(ICorProfilerInfo10 *self, FunctionID functionId,
                                             ULONG cReJitIds, ULONG *pcReJitIds,
                                             ReJITID reJitIds[]);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping2)(ICorProfilerInfo10 *self,
                                                       FunctionID functionId, ReJITID reJitId,
                                                       ULONG32 cMap, ULONG32 *pcMap,
                                                       COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    HRESULT (STDMETHODCALLTYPE *EnumJITedFunctions2)(ICorProfilerInfo10 *self,
                                                     ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetObjectSize2)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                SIZE_T *pcSize);

    /* ICorProfilerInfo5 */
    HRESULT (STDMETHODCALLTYPE *GetEventMask2)(ICorProfilerInfo10 *self, DWORD *pdwEventsLow,
                                               DWORD *pdwEventsHigh);
    HRESULT (STDMETHODCALLTYPE *SetEventMask2)(ICorProfilerInfo10 *self, DWORD dwEventsLow,
                                               DWORD dwEventsHigh);

    /* ICorProfilerInfo6 */
    HRESULT (STDMETHODCALLTYPE *EnumNgenModuleMethodsInliningThisMethod)(
        ICorProfilerInfo10 *self, ModuleID inlinersModuleId, ModuleID inlineeModuleId,
        mdMethodDef inlineeMethodId, BOOL *incompleteData, ICorProfilerMethodEnum **ppEnum);

    /* ICorProfilerInfo7 */
    HRESULT (STDMETHODCALLTYPE *ApplyMetaData)(ICorProfilerInfo10 *self, ModuleID moduleId);
    HRESULT (STDMETHODCALLTYPE *GetInMemorySymbolsLength)(ICorProfilerInfo10 *self,
                                                          ModuleID moduleId,
                                                          DWORD *pCountSymbolBytes);
    HRESULT (STDMETHODCALLTYPE *ReadInMemorySymbols)(ICorProfilerInfo10 *self, ModuleID moduleId,
                                                     DWORD symbolsReadOffset,
                                                     BYTE *pSymbolBytes,
                                                     DWORD countSymbolBytes,
                                                     DWORD *pCountSymbolBytesRead);

    /* ICorProfilerInfo8 */
    HRESULT (STDMETHODCALLTYPE *IsFunctionDynamic)(ICorProfilerInfo10 *self,
                                                   FunctionID functionId, BOOL *isDynamic);
    HRESULT (STDMETHODCALLTYPE *GetFunctionFromIP3)(ICorProfilerInfo10 *self, LPCBYTE ip,
                                                    FunctionID *functionId,
                                                    ReJITID *pReJitId);
    HRESULT (STDMETHODCALLTYPE *GetDynamicFunctionInfo)(ICorProfilerInfo10 *self,
                                                        FunctionID functionId,
                                                        ModuleID *moduleId,
                                                        PCCOR_SIGNATURE *ppvSig, ULONG *pbSig,
                                                        ULONG cchName, ULONG *pcchName,
                                                        WCHAR wszName[]);

    /* ICorProfilerInfo9 */
    HRESULT (STDMETHODCALLTYPE *GetNativeCodeStartAddresses)(ICorProfilerInfo10 *self,
                                                             FunctionID functionID,
                                                             ReJITID reJitId,
                                                             ULONG32 cCodeStartAddresses,
                                                             ULONG32 *pcCodeStartAddresses,
                                                             UINT_PTR codeStartAddresses[]);
    HRESULT (STDMETHODCALLTYPE *GetILToNativeMapping3)(ICorProfilerInfo10 *self,
                                                       UINT_PTR pNativeCodeStartAddress,
                                                       ULONG32 cMap, ULONG32 *pcMap,
                                                       COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    HRESULT (STDMETHODCALLTYPE *GetCodeInfo4)(ICorProfilerInfo10 *self,
                                              UINT_PTR pNativeCodeStartAddress,
                                              ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                              COR_PRF_CODE_INFO codeInfos[]);

    /* ICorProfilerInfo10 */
    HRESULT (STDMETHODCALLTYPE *EnumerateObjectReferences)(ICorProfilerInfo10 *self,
                                                           ObjectID objectId,
                                                           ObjectReferenceCallback *callback,
                                                           void *clientData);
    HRESULT (STDMETHODCALLTYPE *IsFrozenObject)(ICorProfilerInfo10 *self, ObjectID objectId,
                                                BOOL *pbFrozen);
    HRESULT (STDMETHODCALLTYPE *GetLOHObjectSizeThreshold)(ICorProfilerInfo10 *self,
                                                           DWORD *pThreshold);
    HRESULT (STDMETHODCALLTYPE *RequestReJITWithInliners)(ICorProfilerInfo10 *self,
                                                          DWORD dwRejitFlags, ULONG cFunctions,
                                                          ModuleID moduleIds[],
                                                          mdMethodDef methodIds[]);
    HRESULT (STDMETHODCALLTYPE *SuspendRuntime)(ICorProfilerInfo10 *self);
    HRESULT (STDMETHODCALLTYPE *ResumeRuntime)(ICorProfilerInfo10 *self);
} ICorProfilerInfo10Vtbl;

struct ICorProfilerInfo10 {
    const ICorProfilerInfo10Vtbl *lpVtbl;
};

/* ICorProfilerInfo12: the whole ICorProfilerInfo10 table, then the Info11 and
 * Info12 slots. Call the inherited slots as
 *     p->lpVtbl->info10.SetEventMask((ICorProfilerInfo10 *)p, mask);
 * (the object is the same, only the static type differs). */
typedef struct ICorProfilerInfo12Vtbl {
    ICorProfilerInfo10Vtbl info10;

    /* ICorProfilerInfo11 */
    HRESULT (STDMETHODCALLTYPE *GetEnvironmentVariable)(ICorProfilerInfo12 *self,
                                                        const WCHAR *szName, ULONG cchValue,
                                                        ULONG *pcchValue, WCHAR szValue[]);
    HRESULT (STDMETHODCALLTYPE *SetEnvironmentVariable)(ICorProfilerInfo12 *self,
                                                        const WCHAR *szName,
                                                        const WCHAR *szValue);

    /* ICorProfilerInfo12 */
    HRESULT (STDMETHODCALLTYPE *EventPipeStartSession)(
        ICorProfilerInfo12 *self, UINT32 cProviderConfigs,
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[], BOOL requestRundown,
        EVENTPIPE_SESSION *pSession);
    HRESULT (STDMETHODCALLTYPE *EventPipeAddProviderToSession)(
        ICorProfilerInfo12 *self, EVENTPIPE_SESSION session,
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig);
    HRESULT (STDMETHODCALLTYPE *EventPipeStopSession)(ICorProfilerInfo12 *self,
                                                      EVENTPIPE_SESSION session);
    HRESULT (STDMETHODCALLTYPE *EventPipeCreateProvider)(ICorProfilerInfo12 *self,
                                                         const WCHAR *providerName,
                                                         EVENTPIPE_PROVIDER *pProvider);
    HRESULT (STDMETHODCALLTYPE *EventPipeGetProviderInfo)(ICorProfilerInfo12 *self,
                                                          EVENTPIPE_PROVIDER provider,
                                                          ULONG cchName, ULONG *pcchName,
                                                          WCHAR providerName[]);
    HRESULT (STDMETHODCALLTYPE *EventPipeDefineEvent)(
        ICorProfilerInfo12 *self, EVENTPIPE_PROVIDER provider, const WCHAR *eventName,
        UINT32 eventID, UINT64 keywords, UINT32 eventVersion, UINT32 level, UINT8 opcode,
        BOOL needStack, UINT32 cParamDescs, COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[],
        EVENTPIPE_EVENT *pEvent);
    HRESULT (STDMETHODCALLTYPE *EventPipeWriteEvent)(ICorProfilerInfo12 *self,
                                                     EVENTPIPE_EVENT event, UINT32 cData,
                                                     COR_PRF_EVENT_DATA data[],
                                                     LPCGUID pActivityId,
                                                     LPCGUID pRelatedActivityId);
} ICorProfilerInfo12Vtbl;

struct ICorProfilerInfo12 {
    const ICorProfilerInfo12Vtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* Enumerators: IUnknown + Skip, Reset, Clone, GetCount, Next               */
/* ------------------------------------------------------------------------ */

typedef struct ICorProfilerModuleEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerModuleEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerModuleEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerModuleEnum *self);
    /* ICorProfilerModuleEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerModuleEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerModuleEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerModuleEnum *self,
                                       ICorProfilerModuleEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerModuleEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerModuleEnum *self, ULONG celt, ModuleID ids[],
                                      ULONG *pceltFetched);
} ICorProfilerModuleEnumVtbl;

struct ICorProfilerModuleEnum {
    const ICorProfilerModuleEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerFunctionEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerFunctionEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerFunctionEnum *self);
    /* ICorProfilerFunctionEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerFunctionEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerFunctionEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerFunctionEnum *self,
                                       ICorProfilerFunctionEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerFunctionEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerFunctionEnum *self, ULONG celt,
                                      COR_PRF_FUNCTION ids[], ULONG *pceltFetched);
} ICorProfilerFunctionEnumVtbl;

struct ICorProfilerFunctionEnum {
    const ICorProfilerFunctionEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerThreadEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerThreadEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerThreadEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerThreadEnum *self);
    /* ICorProfilerThreadEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerThreadEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerThreadEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerThreadEnum *self,
                                       ICorProfilerThreadEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerThreadEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerThreadEnum *self, ULONG celt, ThreadID ids[],
                                      ULONG *pceltFetched);
} ICorProfilerThreadEnumVtbl;

struct ICorProfilerThreadEnum {
    const ICorProfilerThreadEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerObjectEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerObjectEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerObjectEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerObjectEnum *self);
    /* ICorProfilerObjectEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerObjectEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerObjectEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerObjectEnum *self,
                                       ICorProfilerObjectEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerObjectEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerObjectEnum *self, ULONG celt,
                                      ObjectID objects[], ULONG *pceltFetched);
} ICorProfilerObjectEnumVtbl;

struct ICorProfilerObjectEnum {
    const ICorProfilerObjectEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerMethodEnumVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerMethodEnum *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerMethodEnum *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerMethodEnum *self);
    /* ICorProfilerMethodEnum */
    HRESULT (STDMETHODCALLTYPE *Skip)(ICorProfilerMethodEnum *self, ULONG celt);
    HRESULT (STDMETHODCALLTYPE *Reset)(ICorProfilerMethodEnum *self);
    HRESULT (STDMETHODCALLTYPE *Clone)(ICorProfilerMethodEnum *self,
                                       ICorProfilerMethodEnum **ppEnum);
    HRESULT (STDMETHODCALLTYPE *GetCount)(ICorProfilerMethodEnum *self, ULONG *pcelt);
    HRESULT (STDMETHODCALLTYPE *Next)(ICorProfilerMethodEnum *self, ULONG celt,
                                      COR_PRF_METHOD elements[], ULONG *pceltFetched);
} ICorProfilerMethodEnumVtbl;

struct ICorProfilerMethodEnum {
    const ICorProfilerMethodEnumVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* Small helper interfaces that appear in the signatures above              */
/* ------------------------------------------------------------------------ */

typedef struct IMethodMallocVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IMethodMalloc *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IMethodMalloc *self);
    ULONG (STDMETHODCALLTYPE *Release)(IMethodMalloc *self);
    /* IMethodMalloc */
    PVOID (STDMETHODCALLTYPE *Alloc)(IMethodMalloc *self, ULONG cb);
} IMethodMallocVtbl;

struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionControlVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerFunctionControl *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerFunctionControl *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerFunctionControl *self);
    /* ICorProfilerFunctionControl */
    HRESULT (STDMETHODCALLTYPE *SetCodegenFlags)(ICorProfilerFunctionControl *self, DWORD flags);
    HRESULT (STDMETHODCALLTYPE *SetILFunctionBody)(ICorProfilerFunctionControl *self,
                                                   ULONG cbNewILMethodHeader,
                                                   LPCBYTE pbNewILMethodHeader);
    HRESULT (STDMETHODCALLTYPE *SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *self,
                                                          ULONG cILMapEntries,
                                                          COR_IL_MAP rgILMapEntries[]);
} ICorProfilerFunctionControlVtbl;

struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

typedef struct ICorProfilerAssemblyReferenceProviderVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(ICorProfilerAssemblyReferenceProvider *self,
                                                REFIID riid, void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(ICorProfilerAssemblyReferenceProvider *self);
    ULONG (STDMETHODCALLTYPE *Release)(ICorProfilerAssemblyReferenceProvider *self);
    /* ICorProfilerAssemblyReferenceProvider */
    HRESULT (STDMETHODCALLTYPE *AddAssemblyReference)(
        ICorProfilerAssemblyReferenceProvider *self,
        const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
} ICorProfilerAssemblyReferenceProviderVtbl;

struct ICorProfilerAssemblyReferenceProvider {
    const ICorProfilerAssemblyReferenceProviderVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* IMetaDataImport (cor.h). Name buffers are WCHAR counts, NUL included.    */
/* ------------------------------------------------------------------------ */

typedef struct IMetaDataImportVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IMetaDataImport *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IMetaDataImport *self);
    ULONG (STDMETHODCALLTYPE *Release)(IMetaDataImport *self);

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

struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

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

struct IMetaDataImport2 {
    const IMetaDataImport2Vtbl *lpVtbl;
};

/* IMetaDataAssemblyImport (cor.h): QueryInterface it from an IMetaDataImport. */
typedef struct IMetaDataAssemblyImportVtbl {
    /* IUnknown */
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(IMetaDataAssemblyImport *self, REFIID riid,
                                                void **ppvObject);
    ULONG (STDMETHODCALLTYPE *AddRef)(IMetaDataAssemblyImport *self);
    ULONG (STDMETHODCALLTYPE *Release)(IMetaDataAssemblyImport *self);

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

struct IMetaDataAssemblyImport {
    const IMetaDataAssemblyImportVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------ */
/* Interface IDs                                                            */
/* ------------------------------------------------------------------------ */

/* {00000000-0000-0000-C000-000000000046} */
static const GUID CORPROF_UNUSED IID_IUnknown =
    {0x00000000, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
/* {00000001-0000-0000-C000-000000000046} */
static const GUID CORPROF_UNUSED IID_IClassFactory =
    {0x00000001, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
/* {176FBED1-A55C-4796-98CA-A9DA0EF883E7} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback =
    {0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
/* {8A8CC829-CCF2-49FE-BBAE-0F022228071A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback2 =
    {0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
/* {4FD2ED52-7731-4B8D-9469-03D2CC3086C5} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback3 =
    {0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
/* {7B63B2E3-107D-4D48-B2F6-F61E229470D2} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback4 =
    {0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
/* {8DFBA405-8C9F-45F8-BFFA-83B14CEF78B5} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback5 =
    {0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
/* {FC13DF4B-4448-4F4F-950C-BA8D19D00C36} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback6 =
    {0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
/* {F76A2DBA-1D52-4539-866C-2AA518F9EFC3} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback7 =
    {0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
/* {5BED9B15-C079-4D47-BFE2-215A140C07E0} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback8 =
    {0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
/* {27583EC3-C8F5-482F-8052-194B8CE4705A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback9 =
    {0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
/* {CEC5B60E-C69C-495F-87F6-84D28EE16FFB} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback10 =
    {0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
/* {42350846-AAED-47F7-B128-FD0C98881CDE} */
static const GUID CORPROF_UNUSED IID_ICorProfilerCallback11 =
    {0x42350846, 0xAAED, 0x47F7, {0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE}};
/* {28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo =
    {0x28B5557D, 0x3F3F, 0x48B4, {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}};
/* {CC0935CD-A518-487D-B0BB-A93214E65478} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo2 =
    {0xCC0935CD, 0xA518, 0x487D, {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}};
/* {B555ED4F-452A-4E54-8B39-B5360BAD32A0} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo3 =
    {0xB555ED4F, 0x452A, 0x4E54, {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}};
/* {0D8FDCAA-6257-47BF-B1BF-94DAC88466EE} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo4 =
    {0x0D8FDCAA, 0x6257, 0x47BF, {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}};
/* {07602928-CE38-4B83-81E7-74ADAF781214} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo5 =
    {0x07602928, 0xCE38, 0x4B83, {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}};
/* {F30A070D-BFFB-46A7-B1D8-8781EF7B698A} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo6 =
    {0xF30A070D, 0xBFFB, 0x46A7, {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}};
/* {9AEECC0D-63E0-4187-8C00-E312F503F663} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo7 =
    {0x9AEECC0D, 0x63E0, 0x4187, {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}};
/* {C5AC80A6-782E-4716-8044-39598C60CFBF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo8 =
    {0xC5AC80A6, 0x782E, 0x4716, {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}};
/* {008170DB-F8CC-4796-9A51-DC8AA0B47012} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo9 =
    {0x008170DB, 0xF8CC, 0x4796, {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}};
/* {2F1B5152-C869-40C9-AA5F-3ABE026BD720} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo10 =
    {0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
/* {06398876-8987-4154-B621-40A00D6E4D04} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo11 =
    {0x06398876, 0x8987, 0x4154, {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}};
/* {27B24CCD-1CB1-47C5-96EE-98190DC30959} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo12 =
    {0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};
/* {6E6C7EE2-0701-4EC2-9D29-2E8733B66934} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo13 =
    {0x6E6C7EE2, 0x0701, 0x4EC2, {0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34}};
/* {F460E352-D76D-4FE9-835F-F6AF9D6E862D} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo14 =
    {0xF460E352, 0xD76D, 0x4FE9, {0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D}};
/* {B446462D-BD22-41DD-872D-DC714C49EB56} */
static const GUID CORPROF_UNUSED IID_ICorProfilerInfo15 =
    {0xB446462D, 0xBD22, 0x41DD, {0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56}};
/* {2C6269BD-2D13-4321-AE12-6686365FD6AF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerObjectEnum =
    {0x2C6269BD, 0x2D13, 0x4321, {0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF}};
/* {FF71301A-B994-429D-A10B-B345A65280EF} */
static const GUID CORPROF_UNUSED IID_ICorProfilerFunctionEnum =
    {0xFF71301A, 0xB994, 0x429D, {0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF}};
/* {B0266D75-2081-4493-AF7F-028BA34DB891} */
static const GUID CORPROF_UNUSED IID_ICorProfilerModuleEnum =
    {0xB0266D75, 0x2081, 0x4493, {0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91}};
/* {571194F7-25ED-419F-AA8B-7016B3159701} */
static const GUID CORPROF_UNUSED IID_ICorProfilerThreadEnum =
    {0x571194F7, 0x25ED, 0x419F, {0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01}};
/* {FCCEE788-0088-454B-A811-C99F298D1942} */
static const GUID CORPROF_UNUSED IID_ICorProfilerMethodEnum =
    {0xFCCEE788, 0x0088, 0x454B, {0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42}};
/* {A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8} */
static const GUID CORPROF_UNUSED IID_IMethodMalloc =
    {0xA0EFB28B, 0x6EE2, 0x4D7B, {0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8}};
/* {F0963021-E1EA-4732-8581-E01B0BD3C0C6} */
static const GUID CORPROF_UNUSED IID_ICorProfilerFunctionControl =
    {0xF0963021, 0xE1EA, 0x4732, {0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6}};
/* {66A78C24-2EEF-4F65-B45F-DD1D8038BF3C} */
static const GUID CORPROF_UNUSED IID_ICorProfilerAssemblyReferenceProvider =
    {0x66A78C24, 0x2EEF, 0x4F65, {0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38, 0xBF, 0x3C}};
/* {7DAC8207-D3AE-4C75-9B67-92801A497D44} */
static const GUID CORPROF_UNUSED IID_IMetaDataImport =
    {0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};
/* {FCE5EFA0-8BBA-4F8E-A036-8F2022B08466} */
static const GUID CORPROF_UNUSED IID_IMetaDataImport2 =
    {0xFCE5EFA0, 0x8BBA, 0x4F8E, {0xA0, 0x36, 0x8F, 0x20, 0x22, 0xB0, 0x84, 0x66}};
/* {EE62470B-E94B-424E-9B7C-2F00C9249F93} */
static const GUID CORPROF_UNUSED IID_IMetaDataAssemblyImport =
    {0xEE62470B, 0xE94B, 0x424E, {0x9B, 0x7C, 0x2F, 0x00, 0xC9, 0x24, 0x9F, 0x93}};

/* ------------------------------------------------------------------------ */
/* Layout checks                                                            */
/* ------------------------------------------------------------------------ */

#define CORPROF_SLOT(vtbl, member) (offsetof(vtbl, member) / sizeof(void *))

_Static_assert(sizeof(void *) == 8, "x86-64 only");
_Static_assert(sizeof(GUID) == 16, "GUID layout");
_Static_assert(sizeof(WCHAR) == 2, "WCHAR is UTF-16");
_Static_assert(sizeof(ULONG) == 4 && sizeof(DWORD) == 4 && sizeof(BOOL) == 4,
               "PAL 32-bit integer types");
_Static_assert(sizeof(COR_PRF_CODE_INFO) == 16, "COR_PRF_CODE_INFO layout");
_Static_assert(sizeof(COR_PRF_FUNCTION) == 16, "COR_PRF_FUNCTION layout");
_Static_assert(sizeof(COR_PRF_METHOD) == 16, "COR_PRF_METHOD layout");
_Static_assert(sizeof(COR_IL_MAP) == 12, "COR_IL_MAP layout");
_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP layout");
_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET layout");
_Static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32, "COR_PRF_GC_GENERATION_RANGE layout");
_Static_assert(sizeof(COR_PRF_EX_CLAUSE_INFO) == 32, "COR_PRF_EX_CLAUSE_INFO layout");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32, "provider config layout");
_Static_assert(sizeof(FunctionIDOrClientID) == 8, "FunctionIDOrClientID layout");
/* C++ enums in the runtime are 4 bytes; so must ours be. */
_Static_assert(sizeof(COR_PRF_JIT_CACHE) == 4 && sizeof(COR_PRF_TRANSITION_REASON) == 4 &&
               sizeof(COR_PRF_SUSPEND_REASON) == 4 && sizeof(COR_PRF_RUNTIME_TYPE) == 4 &&
               sizeof(COR_PRF_GC_ROOT_KIND) == 4 && sizeof(COR_PRF_GC_ROOT_FLAGS) == 4 &&
               sizeof(COR_PRF_GC_REASON) == 4 && sizeof(COR_PRF_STATIC_TYPE) == 4 &&
               sizeof(COR_PRF_GC_GENERATION) == 4 && sizeof(COR_PRF_CLAUSE_TYPE) == 4,
               "enum size");

_Static_assert(sizeof(IUnknownVtbl) == 3 * sizeof(void *), "IUnknown: 3 slots");
_Static_assert(sizeof(IClassFactoryVtbl) == 5 * sizeof(void *), "IClassFactory: 5 slots");

/* Callback: IUnknown 3 + Callback 69 + 2: 8 + 3: 3 + 4: 6 + 5..7: 1 each
 * + 8: 2 + 9: 1 + 10: 2 + 11: 1 = 98 */
_Static_assert(sizeof(ICorProfilerCallback11Vtbl) == 98 * sizeof(void *),
               "ICorProfilerCallback11: 98 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, Initialize) == 3, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted) == 23, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute) == 71,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ThreadNameChanged) == 72, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach) == 80, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ProfilerAttachComplete) == 81, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ProfilerDetachSucceeded) == 82,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationStarted) == 83,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationStarted) ==
                   92,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, EventPipeEventDelivered) == 95,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly) == 97, "slot");

/* Info: IUnknown 3 + Info 33 + 2: 21 + 3: 14 + 4: 10 + 5: 2 + 6: 1 + 7: 3
 * + 8: 3 + 9: 3 + 10: 6 = 99; Info11 +2, Info12 +7 = 108 */
_Static_assert(sizeof(ICorProfilerInfo10Vtbl) == 99 * sizeof(void *),
               "ICorProfilerInfo10: 99 slots");
_Static_assert(sizeof(ICorProfilerInfo12Vtbl) == 108 * sizeof(void *),
               "ICorProfilerInfo12: 108 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetClassFromObject) == 3, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionInfo) == 15, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SetEventMask) == 16, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, ForceGC) == 28, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping) == 35, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, DoStackSnapshot) == 36, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo2) == 42, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetNotifiedExceptionClauseInfo) == 56,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions) == 57, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, RequestProfilerDetach) == 58, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetRuntimeInformation) == 67, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetModuleInfo2) == 70, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumThreads) == 71, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP2) == 76, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, EnumJITedFunctions2) == 79, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetEventMask2) == 81, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SetEventMask2) == 82, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetNativeCodeStartAddresses) == 90,
               "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP) == 7, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILFunctionBody) == 22, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetReJITIDs) == 77, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, IsFunctionDynamic) == 87, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetFunctionFromIP3) == 88, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetILToNativeMapping3) == 91, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, GetCodeInfo4) == 92, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, SuspendRuntime) == 97, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo10Vtbl, ResumeRuntime) == 98, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo12Vtbl, GetEnvironmentVariable) == 99, "slot");
_Static_assert(CORPROF_SLOT(ICorProfilerInfo12Vtbl, EventPipeStartSession) == 101, "slot");

_Static_assert(sizeof(ICorProfilerModuleEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerFunctionEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerThreadEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerObjectEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(sizeof(ICorProfilerMethodEnumVtbl) == 8 * sizeof(void *), "enum: 8 slots");
_Static_assert(CORPROF_SLOT(ICorProfilerModuleEnumVtbl, Next) == 7, "slot");
_Static_assert(sizeof(IMethodMallocVtbl) == 4 * sizeof(void *), "IMethodMalloc: 4 slots");
_Static_assert(sizeof(ICorProfilerFunctionControlVtbl) == 6 * sizeof(void *),
               "ICorProfilerFunctionControl: 6 slots");
_Static_assert(sizeof(ICorProfilerAssemblyReferenceProviderVtbl) == 4 * sizeof(void *),
               "ICorProfilerAssemblyReferenceProvider: 4 slots");

/* IMetaDataImport: IUnknown 3 + 62 = 65; IMetaDataImport2: + 8 = 73 */
_Static_assert(sizeof(IMetaDataImportVtbl) == 65 * sizeof(void *), "IMetaDataImport: 65 slots");
_Static_assert(CORPROF_SLOT(IMetaDataImportVtbl, GetScopeProps) == 10, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataImportVtbl, GetModuleFromScope) == 11, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataImportVtbl, GetTypeDefProps) == 12, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataImportVtbl, GetMethodProps) == 30, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataImportVtbl, GetNestedClassProps) == 62, "slot");
_Static_assert(sizeof(IMetaDataImport2Vtbl) == 73 * sizeof(void *),
               "IMetaDataImport2: 73 slots");
_Static_assert(CORPROF_SLOT(IMetaDataImport2Vtbl, EnumGenericParams) == 65, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataImport2Vtbl, GetGenericParamProps) == 66, "slot");
/* IMetaDataAssemblyImport: IUnknown 3 + 14 = 17 */
_Static_assert(sizeof(IMetaDataAssemblyImportVtbl) == 17 * sizeof(void *),
               "IMetaDataAssemblyImport: 17 slots");
_Static_assert(CORPROF_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyProps) == 3, "slot");
_Static_assert(CORPROF_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyFromScope) == 12, "slot");

#endif
