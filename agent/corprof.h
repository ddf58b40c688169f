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
 * and the layouts are checked with static asserts beside each table (slot
 * counts and the position of the slots the agent calls).
 *
 * This header includes the five that declare them, one job each:
 *   corprof_types.h      basic types, HRESULTs, enums, structs, interface names
 *   corprof_callback.h   IUnknown, IClassFactory, the callback table
 *   corprof_info.h       the Info tables, enumerators and helpers
 *   cormeta.h            the metadata importers
 *   corprof_iids.h       the interface IDs of them all
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

#include "corprof_types.h"
#include "corprof_callback.h"
#include "corprof_info.h"
#include "cormeta.h"
#include "corprof_iids.h"

#endif
