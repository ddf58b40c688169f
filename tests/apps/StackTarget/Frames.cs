// Frames.cs — the "frames" mode: two threads whose CPU samples lose a frame to
// the frame-pointer walk unless the profiler recovers it (issue 38, item 4):
//   "osrloop"   Frames.OsrCaller enters Frames.OsrLoop once; its loop runs until
//               "exit", so it runs on-stack-replaced code on its Tier0 frame, and
//               every sample of OsrLoop must have OsrCaller under it
//   "mathleaf"  Frames.MathCaller calls Frames.MathLoop again and again; MathLoop
//               calls Math.Sin and Math.Log (libm's sin and log, which keep no frame
//               pointer), so nearly every sample's leaf is libm, and MathLoop must
//               be on the stack under it
// "exit" or EOF ends it; prints "bye" (whatever was computed, nothing depends on time).

using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace StackTarget
{
    public static class Frames
    {
        static volatile bool stop;
        static double sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double OsrLoop(double a, double b)
        {
            double y = a;
            while (!stop)
            {
                for (int i = 0; i < 4096; i++)
                    y = (y + a) / (y * b + 1.0) + a / (y + b);
            }
            return y;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void OsrCaller(double a, double b)
        {
            sink += OsrLoop(a, b); // entered once
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double MathLoop(int n, double x)
        {
            double s = 0;
            for (int i = 0; i < n; i++)
                s += Math.Sin(x + i) + Math.Log(x + i);
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MathCaller(double x)
        {
            double s = 0;
            while (!stop) s += MathLoop(2000, x);
            sink += s;
        }

        public static int Run()
        {
            double a = 1.5 + Environment.ProcessId % 2 * 0.0, b = 0.5; // not constants to the JIT
            var osr = new Thread(() => OsrCaller(a, b)) { Name = "osrloop" };
            var math = new Thread(() => MathCaller(a)) { Name = "mathleaf" };
            osr.Start();
            math.Start();
            Program.Out("READY pid=" + Environment.ProcessId);
            string? line;
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit") { }
            stop = true;
            osr.Join();
            math.Join();
            Program.Out("bye");
            return 0;
        }
    }
}
