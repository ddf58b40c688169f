/* corprof_types.h -- the profiling API's basic types, HRESULTs, enums and structs, and the
 * names of its interfaces (declared in corprof_callback.h, corprof_info.h,
 * cormeta.h).
 * Part of corprof.h (read its opening comment: where the facts come from, the
 * ABI rules these declarations follow). */
#ifndef JITSCOPE_CORPROF_TYPES_H
#define JITSCOPE_CORPROF_TYPES_H

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

/* Every vtable below begins with IUnknown's three slots, typed for its own
 * object; and every object is only a pointer to its vtable. */
#define CORPROF_IUNKNOWN_SLOTS(Self)                                               \
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(Self *self, REFIID riid,           \
                                                void **ppvObject);                 \
    ULONG (STDMETHODCALLTYPE *AddRef)(Self *self);                                 \
    ULONG (STDMETHODCALLTYPE *Release)(Self *self)
/* The object: a pointer to its vtable, whose slot count is checked (the
 * runtime calls by slot index). */
#define CORPROF_OBJECT(Iface, slots)                                               \
    struct Iface {                                                                 \
        const Iface##Vtbl *lpVtbl;                                                 \
    };                                                                             \
    _Static_assert(sizeof(Iface##Vtbl) == (slots) * sizeof(void *), #Iface ": " #slots " slots")

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

/* ---- layout checks ---- */

#define CORPROF_SLOT(vtbl, member) (offsetof(vtbl, member) / sizeof(void *))
/* The index of a slot, checked against the runtime's headers (the slot
 * counts are checked by CORPROF_OBJECT). */
#define CORPROF_CHECK_SLOT(vtbl, member, n)                                        \
    _Static_assert(CORPROF_SLOT(vtbl, member) == (n), #vtbl "." #member " is slot " #n)

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

#endif
