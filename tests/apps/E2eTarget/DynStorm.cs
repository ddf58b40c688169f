// DynStorm.cs -- E2eTarget's "dynstorm N" mode: N distinct DynamicMethods
// (LCG, as Regex, expression trees and serializers make them), each with
// class-typed parameters (string, List<int>, Dictionary<string, object>),
// compiled by calling it once. For bench/dynamic.mjs: the agent names every
// dynamic method on its JIT thread (its FunctionID is reused once it is
// collected), which resolves each parameter's type through the runtime.
using System;
using System.Collections.Generic;
using System.Reflection.Emit;

namespace JitscopeE2e
{
    public static class DynStorm
    {
        public static int Run(int n)
        {
            var parameters = new[] { typeof(string), typeof(List<int>), typeof(Dictionary<string, object>), typeof(int) };
            var list = new List<int> { 1, 2, 3 };
            var map = new Dictionary<string, object>();
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var dm = new DynamicMethod("JitscopeDynStorm" + i, typeof(int), parameters, typeof(DynStorm).Module);
                var il = dm.GetILGenerator();
                il.Emit(OpCodes.Ldarg_3);
                il.Emit(OpCodes.Ldc_I4, i);
                il.Emit(OpCodes.Add);
                il.Emit(OpCodes.Ret);
                var f = (Func<string, List<int>, Dictionary<string, object>, int, int>)dm.CreateDelegate(
                    typeof(Func<string, List<int>, Dictionary<string, object>, int, int>));
                sum += f("x", list, map, 1);
            }
            Program.Out("dynstorm " + n + " " + sum);
            return 0;
        }
    }
}
