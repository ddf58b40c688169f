// Bench.cs — StackTarget's modes for jitscope's benchmarks (bench/suspend.mjs, bench/sampling.mjs).
//
//   park N     N threads named "park-<i>", each parked three frames deep in managed
//              code (Park.Run -> Level1 -> Level2 -> Level3 -> ManualResetEvent.WaitOne);
//              "READY pid=<pid> threads=<N>" once all of them wait.
//   cpu UNITS [--gate] [--workers N] [--warmup-ms MS]
//              a CPU-bound workload: UNITS units of work split over N threads
//              ("cpu-<i>"; default one per core), after MS ms of the same work
//              untimed (default 0; "warm" is printed when it ends); each unit builds and evaluates a small expression
//              tree recursively, sorts an array and fills a dictionary (allocation,
//              calls several frames deep, framework code). With --gate it prints
//              "WAITING pid=<pid>" and starts only on the stdin line "go", so a tool
//              can be set up before the work begins. Prints "cpu checksum <hex>";
//              the time the timed work took goes to stderr as "cpu: work_ms=<ms>", with the
//              process's CPU time in it (all threads, user and system) as "cpu_ms=<ms>".
//   cpuloop [--workers N]
//              the same units of work on N threads ("cpu-<i>", default one per core) without
//              end, for a tool switched on and off while it runs: "READY pid=<pid>", then on
//              each stdin line "count" it prints "count units=<done so far> cpu_ms=<the
//              process's CPU time> wall_ms=<since READY> worker_cpu_ns=<the workers' own CPU
//              time, from /proc/self/task/TID/schedstat: in ns, where cpu_ms counts in 10 ms
//              ticks>"; "exit" or EOF ends it ("bye").

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace StackTarget
{
    public static class Park
    {
        static readonly ManualResetEvent Gate = new ManualResetEvent(false);
        static int _parked;

        public static int Parked => Volatile.Read(ref _parked);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run() => Level1();

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level1() { Level2(); GC.KeepAlive(Gate); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level2() { Level3(); GC.KeepAlive(Gate); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level3()
        {
            Interlocked.Increment(ref _parked);
            Gate.WaitOne();
        }

        public static Thread[] StartAndSettle(int n)
        {
            var threads = new Thread[n];
            for (int i = 0; i < n; i++)
            {
                threads[i] = new Thread(Run, 256 * 1024) { Name = "park-" + i, IsBackground = true };
                threads[i].Start();
            }
            var deadline = DateTime.UtcNow.AddSeconds(120);
            for (int i = 0; i < n; i++)
            {
                while (Parked < n || (threads[i].ThreadState & System.Threading.ThreadState.WaitSleepJoin) == 0)
                {
                    if (DateTime.UtcNow > deadline) throw new InvalidOperationException("park threads did not settle");
                    Thread.Sleep(2);
                }
            }
            return threads;
        }

        public static void Release(Thread[] threads)
        {
            Gate.Set();
            foreach (Thread t in threads) t.Join();
        }
    }

    public static class Cpu
    {
        abstract class Expr { public abstract long Eval(); }
        sealed class Leaf : Expr
        {
            readonly long _v;
            public Leaf(long v) { _v = v; }
            public override long Eval() => _v;
        }
        sealed class Add : Expr
        {
            readonly Expr _l, _r;
            public Add(Expr l, Expr r) { _l = l; _r = r; }
            [MethodImpl(MethodImplOptions.NoInlining)]
            public override long Eval() => _l.Eval() + _r.Eval();
        }
        sealed class Mul : Expr
        {
            readonly Expr _l, _r;
            public Mul(Expr l, Expr r) { _l = l; _r = r; }
            [MethodImpl(MethodImplOptions.NoInlining)]
            public override long Eval() => (_l.Eval() * _r.Eval()) % 1_000_003L;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static Expr Build(int depth, long seed)
        {
            if (depth == 0) return new Leaf(seed % 97 + 1);
            Expr l = Build(depth - 1, seed * 31 + 7), r = Build(depth - 1, seed * 17 + 3);
            return (depth & 1) == 0 ? new Add(l, r) : new Mul(l, r);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long SortWork(long seed)
        {
            var a = new int[512];
            uint x = (uint)seed | 1;
            for (int i = 0; i < a.Length; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; a[i] = (int)(x % 100_000); }
            Array.Sort(a);
            return a[0] + a[255] * 3L + a[511] * 7L;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long DictWork(long seed)
        {
            var d = new Dictionary<int, long>();
            for (int i = 0; i < 256; i++) d[(int)((seed + i * 7919L) % 4096)] = i;
            long s = 0;
            for (int i = 0; i < 4096; i += 3) if (d.TryGetValue(i, out long v)) s += v;
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Unit(long seed)
        {
            long r = Build(8, seed).Eval();
            r = r * 31 + SortWork(seed);
            r = r * 31 + DictWork(seed);
            return r;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static ulong Worker(int first, int count)
        {
            // A sum of per-unit hashes: the same total however the units are split.
            ulong h = 0;
            for (int u = first; u < first + count; u++) h += Fnv.Add(Fnv.Seed, Unit(u));
            return h;
        }

        /// <summary>Untimed: the same work on every worker for <paramref name="ms"/> ms (JIT tiering settles, tools adapt).</summary>
        static void WarmUp(int workers, int ms)
        {
            var clock = Stopwatch.StartNew();
            var threads = new Thread[workers];
            for (int w = 0; w < workers; w++)
            {
                int seed = w * 1_000_000;
                threads[w] = new Thread(() =>
                {
                    ulong h = 0;
                    for (int u = seed; clock.ElapsedMilliseconds < ms; u++) h += Fnv.Add(Fnv.Seed, Unit(u));
                    GC.KeepAlive(h);
                }) { Name = "cpu-warmup-" + w };
                threads[w].Start();
            }
            foreach (Thread t in threads) t.Join();
        }

        static long _looped;

        /// <summary>The calling thread's OS thread id (/proc/thread-self links to "PID/task/TID").</summary>
        static int OsThreadId()
        {
            string? link = new System.IO.FileInfo("/proc/thread-self").LinkTarget;
            return link == null ? 0 : int.Parse(link.Substring(link.LastIndexOf('/') + 1), System.Globalization.CultureInfo.InvariantCulture);
        }

        /// <summary>CPU time of thread <paramref name="tid"/> in ns (first field of its schedstat), 0 when unknown.</summary>
        static long ThreadCpuNs(int tid)
        {
            try
            {
                string s = System.IO.File.ReadAllText("/proc/self/task/" + tid + "/schedstat");
                return long.Parse(s.Substring(0, s.IndexOf(' ')), System.Globalization.CultureInfo.InvariantCulture);
            }
            catch (Exception) { return 0; }
        }

        /// <summary>cpuloop: units of work on every worker until stdin says exit; "count" reports.</summary>
        public static int Loop(int workers)
        {
            if (workers <= 0) workers = Math.Max(1, Environment.ProcessorCount);
            var stop = new ManualResetEventSlim(false);
            var threads = new Thread[workers];
            var tids = new int[workers];
            using var started = new CountdownEvent(workers);
            for (int w = 0; w < workers; w++)
            {
                int seed = w * 1_000_000, index = w;
                threads[w] = new Thread(() =>
                {
                    tids[index] = OsThreadId();
                    started.Signal();
                    ulong h = 0;
                    for (int u = seed; !stop.IsSet; u++)
                    {
                        h += Fnv.Add(Fnv.Seed, Unit(u));
                        Interlocked.Increment(ref _looped);
                    }
                    GC.KeepAlive(h);
                }) { Name = "cpu-" + w, IsBackground = true };
                threads[w].Start();
            }
            started.Wait();
            var self = Process.GetCurrentProcess();
            var clock = Stopwatch.StartNew();
            Program.Out("READY pid=" + Environment.ProcessId);
            var inv = System.Globalization.CultureInfo.InvariantCulture;
            string? line;
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit")
            {
                if (line.Trim() != "count") continue;
                long units = Interlocked.Read(ref _looped), workerNs = 0;
                foreach (int tid in tids) workerNs += ThreadCpuNs(tid);
                self.Refresh();
                Program.Out("count units=" + units + " cpu_ms="
                    + self.TotalProcessorTime.TotalMilliseconds.ToString("F1", inv) + " wall_ms="
                    + clock.Elapsed.TotalMilliseconds.ToString("F1", inv) + " worker_cpu_ns=" + workerNs);
            }
            stop.Set();
            foreach (Thread t in threads) t.Join();
            Program.Out("bye");
            return 0;
        }

        public static int Run(int units, bool gate, int workers, int warmupMs)
        {
            if (gate)
            {
                Program.Out("WAITING pid=" + Environment.ProcessId);
                string? line;
                while ((line = Console.In.ReadLine()) != null && line.Trim() != "go") { }
                if (line == null) return 3;
            }
            if (workers <= 0) workers = Math.Max(1, Environment.ProcessorCount);
            if (warmupMs > 0)
            {
                WarmUp(workers, warmupMs);
                Program.Out("warm");
            }
            var results = new ulong[workers];
            var threads = new Thread[workers];
            var self = Process.GetCurrentProcess();
            TimeSpan cpu0 = self.TotalProcessorTime;
            var clock = Stopwatch.StartNew();
            for (int w = 0; w < workers; w++)
            {
                int idx = w;
                int first = units * idx / workers, next = units * (idx + 1) / workers;
                threads[w] = new Thread(() => results[idx] = Worker(first, next - first)) { Name = "cpu-" + w };
                threads[w].Start();
            }
            foreach (Thread t in threads) t.Join();
            clock.Stop();
            self.Refresh();
            TimeSpan cpu = self.TotalProcessorTime - cpu0;
            ulong sum = 0;
            foreach (ulong r in results) sum += r;
            Program.Out("cpu units " + units + " checksum " + sum.ToString("x16"));
            var inv = System.Globalization.CultureInfo.InvariantCulture;
            Console.Error.WriteLine("cpu: work_ms=" + clock.Elapsed.TotalMilliseconds.ToString("F1", inv) + " workers=" + workers
                + " cpu_ms=" + cpu.TotalMilliseconds.ToString("F1", inv));
            return 0;
        }
    }
}
