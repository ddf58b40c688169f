// EmitStorm.cs — E2eTarget's "emitstorm N" mode: N methods emitted into a
// dynamic assembly with Reflection.Emit (as serializers, proxies and mappers
// do at run time), 100 to a type, each called once through a delegate so the
// JIT compiles it. The second kind of workload of jitscope's benchmarks
// (bench/endtoend.mjs), beside the generic storm (Storm.cs): the agent names
// these methods through the runtime's metadata importer (a dynamic module has
// no image to read). Prints "emitstorm: N methods in T ms" on stderr and a
// checksum on stdout.

using System;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;

namespace JitscopeE2e
{
    public static class EmitStorm
    {
        private const int MethodsPerType = 100;

        public static int Run(int count)
        {
            var watch = Stopwatch.StartNew();
            var assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("JitscopeEmitStorm"),
                AssemblyBuilderAccess.Run);
            var module = assembly.DefineDynamicModule("JitscopeEmitStorm");
            long checksum = 0;
            for (int t = 0; t * MethodsPerType < count; t++)
            {
                int methods = Math.Min(MethodsPerType, count - t * MethodsPerType);
                var builder = module.DefineType($"JitscopeEmitted.Mapper{t:D4}",
                    TypeAttributes.Public | TypeAttributes.Sealed | TypeAttributes.Abstract);
                for (int m = 0; m < methods; m++)
                    Emit(builder, m, t * MethodsPerType + m + 1);
                Type type = builder.CreateType()!;
                for (int m = 0; m < methods; m++)
                {
                    var method = type.GetMethod($"Map{m:D3}", BindingFlags.Public | BindingFlags.Static)!;
                    checksum += method.CreateDelegate<Func<long, int, long>>()(3, t);
                }
            }
            Console.Error.WriteLine($"emitstorm: {count} methods in {watch.ElapsedMilliseconds} ms");
            Console.Out.WriteLine($"checksum {checksum}");
            return 0;
        }

        /// <summary>static long MapNNN(long a, int b) => ((a * k) ^ b) + m;</summary>
        private static void Emit(TypeBuilder type, int m, long k)
        {
            var method = type.DefineMethod($"Map{m:D3}", MethodAttributes.Public | MethodAttributes.Static,
                typeof(long), new[] { typeof(long), typeof(int) });
            var il = method.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I8, k);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Xor);
            il.Emit(OpCodes.Ldc_I8, (long)m);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
        }
    }
}
