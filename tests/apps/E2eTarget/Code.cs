// Code.cs -- the "code" mode of E2eTarget: methods whose native code the code
// view reads (tests/e2e/code.test.mjs compares it with the JIT's own listing).
//
//   code   CodeWork.CodeHot runs on a worker thread every millisecond, so it and
//          CodeLeaf tier up (Tier0, then Instrumented Tier0 and Tier1 under tiered
//          PGO); "READY" once both have run. Then stdin:
//            "stop" -> the worker stops; the app waits until the runtime compiles
//                      nothing more for 1 s (System.Runtime.JitInfo), prints "stopped"
//            "exit" / EOF -> "exit 0", exit code 0
// CodeHot calls CodeLeaf (never inlined), CodeSmall (inlined at Tier1), a
// List<int> and Math.Max: calls that Tier1 inlines and calls it keeps.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    public static class CodeWork
    {
        static volatile bool stop;
        static long sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CodeLeaf(int x) => x * 3 + 1;

        static int CodeSmall(int x) => x + 7;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CodeHot(int n)
        {
            int s = 0;
            for (int i = 0; i < n; i++)
                s += CodeLeaf(i) + CodeSmall(i);
            var list = new List<int>();
            list.Add(s);
            return s + list.Count + Math.Max(s, n);
        }

        public static int Run() => Serve((i) => sink += CodeHot(8));

        /// <summary>The stdin protocol above around `work`, called once, then on
        /// a worker every millisecond (with a counter) until "stop".</summary>
        public static int Serve(Action<int> work)
        {
            work(0);
            var worker = new Thread(() =>
            {
                for (int i = 1; !stop; i++)
                {
                    work(i);
                    Thread.Sleep(1);
                }
            }) { IsBackground = true, Name = "code-worker" };
            worker.Start();
            Program.Out("READY");
            string line;
            while ((line = Console.ReadLine()) != null)
            {
                if (line == "stop")
                {
                    stop = true;
                    worker.Join();
                    WaitUntilNothingCompiles();
                    Program.Out("stopped");
                }
                else if (line == "exit")
                {
                    break;
                }
            }
            stop = true;
            Program.Out("exit 0");
            return 0;
        }

        /// <summary>Returns once the runtime has compiled nothing for a second
        /// (a tier-up queued by the last calls is done by then).</summary>
        static void WaitUntilNothingCompiles()
        {
            long last = System.Runtime.JitInfo.GetCompiledMethodCount(false);
            for (int quiet = 0; quiet < 10;)
            {
                Thread.Sleep(100);
                long now = System.Runtime.JitInfo.GetCompiledMethodCount(false);
                quiet = now == last ? quiet + 1 : 0;
                last = now;
            }
        }
    }
}
