// Collectible.cs -- mode "collectible ROUNDS METHODS [LONGDIR]": code that is
// loaded, JIT-compiled and unloaded in a loop, for jitscope's agent-safety
// tests (a FunctionID dies with its collectible module and may be reused).
//
// Each round r builds a collectible (RunAndCollect) assembly "JitscopeGen<r>"
// with one type JitscopeGen.Round<r> and METHODS static methods M<r>_<k>(),
// calls each once (so each is JIT-compiled), also calls the E2ePlugin assembly
// loaded into a collectible AssemblyLoadContext, then drops every reference
// and collects until both are unloaded. Per round it prints
//   round <r> <start> <end>           Stopwatch timestamps (CLOCK_MONOTONIC ns
//                                     on Linux, the clock of the agent's records)
//   gen <handle hex> <name>           per method: its RuntimeMethodHandle value
//                                     (the runtime's FunctionID) and its name
// and finally "collectible done <sum>". With LONGDIR, E2ePlugin.dll is first
// copied under LONGDIR (a path longer than the agent's 1024-unit buffer) and
// loaded from there once ("longpath <path>").
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;

namespace JitscopeE2e
{
    public static class Collectible
    {
        public static int Run(int rounds, int methods, string? longDir)
        {
            long sum = 0;
            if (longDir != null)
                sum += LoadFromLongPath(longDir);
            for (int r = 0; r < rounds; r++)
            {
                long start = Stopwatch.GetTimestamp();
                var (weak, alcWeak, got) = OneRound(r, methods);
                sum += got;
                for (int i = 0; i < 50 && (weak.IsAlive || alcWeak.IsAlive); i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }
                Program.Out($"round {r} {start} {Stopwatch.GetTimestamp()}");
            }
            Program.Out("collectible done " + sum);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static (WeakReference, WeakReference, long) OneRound(int r, int methods)
        {
            var ab = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("JitscopeGen" + r),
                                                           AssemblyBuilderAccess.RunAndCollect);
            var mb = ab.DefineDynamicModule("JitscopeGen" + r);
            var tb = mb.DefineType("JitscopeGen.Round" + r, TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
            for (int k = 0; k < methods; k++)
            {
                var m = tb.DefineMethod($"M{r}_{k}", MethodAttributes.Public | MethodAttributes.Static, typeof(int), Type.EmptyTypes);
                var il = m.GetILGenerator();
                il.Emit(OpCodes.Ldc_I4, r * 100000 + k);
                il.Emit(OpCodes.Ret);
            }
            Type t = tb.CreateType()!;
            long got = 0;
            var lines = new List<string>(methods);
            for (int k = 0; k < methods; k++)
            {
                MethodInfo mi = t.GetMethod($"M{r}_{k}")!;
                got += ((Func<int>)mi.CreateDelegate(typeof(Func<int>)))();
                lines.Add($"gen {mi.MethodHandle.Value.ToInt64():x} JitscopeGen.Round{r}.M{r}_{k}()");
            }
            foreach (string line in lines)
                Program.Out(line);
            var alc = new AssemblyLoadContext("jitscope-plugin-" + r, isCollectible: true);
            string plugin = Path.Combine(AppContext.BaseDirectory, "E2ePlugin.dll");
            Assembly pa = alc.LoadFromAssemblyPath(plugin);
            got += pa.GetType("JitscopePlugin.PluginEntry")!.GetMethod("UniquePluginMethod")!
                     .Invoke(null, null)!.ToString()!.Length;
            alc.Unload();
            return (new WeakReference(ab), new WeakReference(alc), got);
        }

        static long LoadFromLongPath(string dir)
        {
            string path = dir;
            while (path.Length < 1300)
                path = Path.Combine(path, "a-rather-long-directory-name-for-jitscope-path-tests");
            Directory.CreateDirectory(path);
            string target = Path.Combine(path, "E2ePlugin.dll");
            File.Copy(Path.Combine(AppContext.BaseDirectory, "E2ePlugin.dll"), target, true);
            var alc = new AssemblyLoadContext("jitscope-longpath", isCollectible: false);
            Assembly pa = alc.LoadFromAssemblyPath(target);
            Program.Out("longpath " + target);
            return pa.GetType("JitscopePlugin.PluginEntry")!.GetMethod("UniquePluginMethod")!
                     .Invoke(null, null)!.ToString()!.Length;
        }
    }
}
