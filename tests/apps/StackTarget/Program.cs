// StackTarget — jitscope's test target for stack snapshots, the sampling profiler
// and the GC/suspension timeline. Threads with KNOWN stacks (Threads.cs):
//   "deep"     parked 25 frames deep in StackTarget.Deep.Recurse (then Deep.Park,
//              then ManualResetEvent.WaitOne)
//   "spinner"  StackTarget.Spin.Outer -> StackTarget.Spin.Inner, a hot loop
//   "sleeper"  in Thread.Sleep(Infinite)
//
// Modes (first argument; SECONDS is a safety time limit, default 600):
//   stacks [SECONDS]  start the known threads, print "READY pid=<pid>", then read stdin:
//                       "gc"   -> GC.Collect(0), GC.Collect(1), GC.Collect(2), print "gc done <n>"
//                       "tick" -> print "tock <n>"
//                       "exit" or EOF -> stop the threads (printing what they computed), "bye", exit 0
//   churn [SECONDS]   the known threads plus churn (Churn.cs): phase A right after
//                     "READY pid=<pid>", then phase B rounds until stdin says "finish"
//                     (or EOF); prints deterministic result lines and exits 0.
//   hotline           two threads hot on one known line each, Work (Tier1) and OsrLoop
//                     (on-stack replacement) (Hot.cs); "exit" or EOF ends it
//   frames [SECONDS]  two threads whose CPU samples the frame-pointer walk alone loses a
//                     frame of: OsrCaller -> OsrLoop (on-stack replacement) and
//                     MathCaller -> MathLoop -> libm's sin/log (Frames.cs); "exit" or EOF ends it
//   park N            benchmark: N parked threads (Bench.cs)
//   cpu UNITS [--gate] [--workers N] [--warmup-ms MS]  benchmark: CPU-bound workload (Bench.cs)
//   cpuloop [--workers N]  benchmark: the same work without end, counted on request (Bench.cs)
// Apart from the READY/WAITING line (it has the pid), stdout is deterministic: two
// runs with the same input print the same lines. Every line is flushed at once.
// When the time limit passes, the app prints "time limit" and exits with code 3.

using System;
using System.Threading;

namespace StackTarget
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            // Open stdin now (the runtime dups fd 0 for Console.In), not after the
            // READY line: a test compares the app's open fds before and after a tool.
            _ = Console.In;
            string mode = args.Length > 0 ? args[0] : "stacks";
            switch (mode)
            {
                case "stacks":
                    StartTimeLimit(IntArg(args, 1, 600));
                    return Stacks();
                case "churn":
                    StartTimeLimit(IntArg(args, 1, 600));
                    return ChurnMode();
                case "hotline":
                    StartTimeLimit(IntArg(args, 1, 600));
                    return Hot.Run();
                case "frames":
                    StartTimeLimit(IntArg(args, 1, 600));
                    return Frames.Run();
                case "park":
                {
                    int n = IntArg(args, 1, 10);
                    Thread[] threads = Park.StartAndSettle(n);
                    Out("READY pid=" + Environment.ProcessId + " threads=" + n);
                    ReadUntilExit(null);
                    Park.Release(threads);
                    Out("bye");
                    return 0;
                }
                case "cpuloop":
                {
                    int w = Array.IndexOf(args, "--workers");
                    return Cpu.Loop(w > 0 ? IntArg(args, w + 1, 0) : 0);
                }
                case "cpu":
                {
                    int w = Array.IndexOf(args, "--workers"), m = Array.IndexOf(args, "--warmup-ms");
                    return Cpu.Run(IntArg(args, 1, 20000), Array.IndexOf(args, "--gate") > 0,
                                   w > 0 ? IntArg(args, w + 1, 0) : 0, m > 0 ? IntArg(args, m + 1, 0) : 0);
                }
                default:
                    Console.Error.WriteLine("usage: StackTarget [stacks [SECONDS] | churn [SECONDS] | hotline [SECONDS] | frames [SECONDS] | park N | cpu UNITS [--gate] [--workers N] [--warmup-ms MS] | cpuloop [--workers N]]");
                    return 2;
            }
        }

        /// <summary>Writes one stdout line and flushes it immediately.</summary>
        public static void Out(string line)
        {
            lock (Console.Out)
            {
                Console.Out.WriteLine(line);
                Console.Out.Flush();
            }
        }

        static int IntArg(string[] args, int index, int fallback)
        {
            if (args.Length <= index) return fallback;
            if (int.TryParse(args[index], out int v) && v > 0) return v;
            Console.Error.WriteLine($"StackTarget: bad number '{args[index]}'");
            Environment.Exit(2);
            return fallback;
        }

        /// <summary>A safety net: whatever happens, the app is gone after <paramref name="seconds"/>.</summary>
        static void StartTimeLimit(int seconds)
        {
            var t = new Thread(() =>
            {
                Thread.Sleep(seconds * 1000);
                Out("time limit");
                Environment.Exit(3);
            }) { Name = "time-limit", IsBackground = true };
            t.Start();
        }

        /// <summary>Reads stdin until "exit"/EOF; other commands go to <paramref name="handle"/>.</summary>
        static void ReadUntilExit(Action<string>? handle)
        {
            string? line;
            while ((line = Console.In.ReadLine()) != null)
            {
                line = line.Trim();
                if (line.Length == 0) continue;
                if (line == "exit") break;
                if (handle != null) handle(line);
                else Out("error unknown-command " + line);
            }
        }

        static int Stacks()
        {
            var known = new KnownThreads();
            known.StartAndSettle();
            Out("READY pid=" + Environment.ProcessId);
            int gcs = 0, ticks = 0;
            ReadUntilExit(line =>
            {
                switch (line)
                {
                    case "gc":
                        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
                        GC.Collect(1, GCCollectionMode.Forced, blocking: true);
                        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
                        Out("gc done " + ++gcs);
                        break;
                    case "tick":
                        Out("tock " + ++ticks);
                        break;
                    default:
                        Out("error unknown-command " + line);
                        break;
                }
            });
            known.StopAndReport();
            Out("bye");
            return 0;
        }

        static int ChurnMode()
        {
            var known = new KnownThreads();
            known.StartAndSettle();
            var finish = new ManualResetEventSlim(false);
            var reader = new Thread(() =>
            {
                string? line;
                while ((line = Console.In.ReadLine()) != null && line.Trim() != "finish") { }
                finish.Set();
            }) { Name = "stdin-reader", IsBackground = true };
            reader.Start();
            Out("READY pid=" + Environment.ProcessId);

            ulong a = Churn.PhaseA();
            Out("churn phase-a methods " + Churn.Methods + " checksum " + a.ToString("x16"));

            ulong first = Churn.PhaseBRound(0);
            string verdict = "consistent";
            int rounds = 1;
            for (int round = 1; !finish.IsSet; round++, rounds++)
            {
                ulong v = Churn.PhaseBRound(round);
                if (v != first)
                {
                    verdict = "MISMATCH in round " + round + ": " + v.ToString("x16");
                    break;
                }
            }
            finish.Wait();
            Console.Error.WriteLine("churn: " + rounds + " phase-b rounds"); // depends on time: stderr
            Out("churn phase-b value " + first.ToString("x16") + " " + verdict);
            known.StopAndReport();
            Out("bye");
            return 0;
        }
    }
}
