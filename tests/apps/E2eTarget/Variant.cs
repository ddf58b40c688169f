// Variant.cs -- "variant a|b" and "pair" modes, for tests/e2e/compare.test.mjs and
// tests/browser/compare.test.mjs: two runs that JIT different methods.
//
//   variant a   JITs JitscopeE2e.Variant.Shared(int), OnlyInA(), OnlyInAHelper(long),
//               and uses System.Collections.Specialized (an assembly only A loads)
//   variant b   JITs JitscopeE2e.Variant.Shared(int), OnlyInB(string), and loads
//               E2ePlugin.dll (JitscopePlugin.PluginEntry.UniquePluginMethod(): a
//               module and a method only B has)
//   pair        starts this app as "variant a", waits for it, then as "variant b"
//               (children inherit the environment, so under `jitscope run` each gets
//               a session of its own, A's before B's), prints "pair done", exit 0
// Each variant prints "variant X <checksum>" and exits 0.
using System;
using System.Collections.Specialized;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace JitscopeE2e
{
    public static class Variant
    {
        public static int Run(string which)
        {
            long sum = Shared(7);
            if (which == "a")
                sum += OnlyInA();
            else if (which == "b")
                sum += OnlyInB("bee") + Program.CallPlugin().Length;
            else
            {
                Console.Error.WriteLine("usage: E2eTarget variant a|b");
                return 2;
            }
            Program.Out("variant " + which + " " + sum);
            return 0;
        }

        public static int Pair()
        {
            foreach (string which in new[] { "a", "b" })
            {
                var start = new ProcessStartInfo("dotnet") { UseShellExecute = false };
                start.ArgumentList.Add(Environment.GetCommandLineArgs()[0]);
                start.ArgumentList.Add("variant");
                start.ArgumentList.Add(which);
                using var child = Process.Start(start);
                if (child == null)
                {
                    Console.Error.WriteLine("E2eTarget: cannot start variant " + which);
                    return 3;
                }
                child.WaitForExit();
            }
            Program.Out("pair done");
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Shared(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++)
                s += i * 3;
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long OnlyInA()
        {
            var names = new StringCollection { "x", "yy" };
            return OnlyInAHelper(names.Count) + names[1]!.Length;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long OnlyInAHelper(long v) => v * 11;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long OnlyInB(string s) => s.Length * 13L;
    }
}
