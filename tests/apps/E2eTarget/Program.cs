// E2eTarget — the end-to-end test target for jitscope.
//
// A small console app whose JIT activity the jitscope tests can predict: it
// calls uniquely named methods (namespace JitscopeE2e), names a thread, and
// loads a second assembly (E2ePlugin.dll, next to this exe, NOT a compile-time
// reference). Everything it prints to stdout is deterministic (no timings,
// thread ids or addresses), so two runs print identical output; every line is
// flushed at once. Timings, where useful, go to stderr.
//
// Modes (first argument):
//   (none) | run        run the scenario below, print "exit 42", exit code 42
//   serve               run the scenario, print "READY", then read stdin lines:
//                         "call N"  -> call JitscopeE2e.Late.LateMethodNN (N = 1..40,
//                                      each never called before), print "called N <result>"
//                         "tick"    -> print "tock <counter>"
//                         "storm K" -> JIT the next K storm methods (see jitstorm; never
//                                      compiled before in this process), print
//                                      "stormed <count> <checksum>"
//                         "pace K R" -> the same K methods at R per second (Storm.RunPaced),
//                                      print "paced <count> <checksum>" (the same checksum
//                                      as "storm K"); on stderr "pace: <count> methods in
//                                      <ms> ms, <achieved>/s (asked <R>/s)"
//                         "tracing" -> "tracing on|off|absent": whether an EventPipe
//                                      session has the runtime's provider enabled now
//                                      (its managed half says; absent: never made)
//                         "exit"/EOF-> exit code 0
//   spin SECONDS        steady CPU work for SECONDS, "alive <n>" once a second, exit 0
//   jitstorm N [hold]   JIT-compile N distinct generic method instantiations
//                       (N <= Storm.Capacity = 27930), print "jitted"; with "hold",
//                       stay alive reading stdin (same commands as serve) until exit/EOF
//   jitstorm N rate R [hold]  the same at R methods per second (~1 ms slices); stdout
//                       as above, stderr also "jitstorm: paced at <achieved>/s (asked <R>/s)"
//   emitstorm N [hold]  N methods emitted with Reflection.Emit, each called once
//                       (EmitStorm.cs); with "hold", then as serve after "holding"
//   names               print the metadata names of the unique methods (for test writers)
//   collectible R M [DIR] [hold]  R rounds of M methods in collectible assemblies, loaded,
//                       JIT-compiled and unloaded (Collectible.cs says what it prints); with
//                       "hold", then as serve after "holding"
//   variant a|b, pair   two runs that JIT different methods (Variant.cs)
//   code                methods for the code view, tiering up on a worker (Code.cs)
//   calls               delegate, virtual, interface and async calls, the same way (Calls.cs)
//   dyncollect N BATCH SPIN_US [hold]  DynamicMethods on the stack, then collected,
//                       2N of them (DynCollect.cs says what it prints)
//   threads N BATCH     N named short-lived threads, ThreadIDs reused (ThreadChurn.cs)
//   throws [wait] [child], unhandled, throwstorm N   exceptions (Throws.cs says what)
//   allocs MB [wait]    a known mix of allocations, 70% byte[], 30% objects (Allocs.cs)
//   requests N          N JSON "requests" at a service's allocation rate (Requests.cs)
//
// The scenario (run and serve) calls, in this order:
//   JitscopeE2e.Probe.UniqueAlpha()
//   JitscopeE2e.Probe.UniqueGeneric<int>(int), JitscopeE2e.Probe.UniqueGeneric<string>(string)
//   JitscopeE2e.Outer.Inner.UniqueNested()            (metadata: JitscopeE2e.Outer+Inner)
//   JitscopeE2e.Probe.UniqueLambdaHost()               (defines and invokes a lambda)
//   JitscopeE2e.Box<long>.UniqueBoxGet()
//   JitscopeE2e.Probe.UniqueThreadWork()               on a thread named "e2e-named-thread"
//                                                      (joined before going on)
//   JitscopePlugin.PluginEntry.UniquePluginMethod()    in E2ePlugin.dll, via reflection
//   JitscopeE2e.Probe.Calc(int), Calc(int, ref long), Calc(string[], out int),
//   Calc<double>(List<double>, double[,])              overloads told apart by parameters
//   JitscopeE2e.Box<long>.UniqueBoxMix(T, Box<T>)      a class type parameter in a parameter
//   JitscopeE2e.Probe.UniqueDynamic()                  emits and calls the DynamicMethod
//                                                      JitscopeE2eDynamicAdd(long, int)
// All of them are [MethodImpl(NoInlining)] so each one is its own JIT-compiled method.

using System;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    public static class Program
    {
        public const string NamedThreadName = "e2e-named-thread";
        public const string KeeperThreadName = "e2e-keeper";
        public const int RunExitCode = 42;

        public static int Main(string[] args)
        {
            string mode = args.Length > 0 ? args[0] : "run";
            switch (mode)
            {
                case "run":
                    RunScenario();
                    Out("exit " + RunExitCode);
                    return RunExitCode;
                case "serve":
                    RunScenario();
                    Late.Call(0); // JIT the dispatcher now, so "call N" JITs only LateMethodNN
                    return Serve("READY");
                case "spin":
                    return Spin(IntArg(args, 1, 5));
                case "jitstorm":
                    if (args.Length > 2 && args[2] == "rate")
                        return JitStorm(IntArg(args, 1, 1000), PositiveArg(args, 3), args.Length > 4 && args[4] == "hold");
                    return JitStorm(IntArg(args, 1, 1000), 0, args.Length > 2 && args[2] == "hold");
                case "names":
                    PrintNames();
                    return 0;
                case "atexit":
                    return AtExit.Run();
                case "gcs":
                    return GcLoop.Run(IntArg(args, 1, 20), args.Length > 2 && args[2] == "large");
                case "dynstorm":
                    return DynStorm.Run(IntArg(args, 1, 1000));
                case "emitstorm":
                {
                    int rc = EmitStorm.Run(IntArg(args, 1, 1000));
                    return args.Length > 2 && args[2] == "hold" ? Serve("holding") : rc;
                }
                case "parent":
                    return Tree.Parent();
                case "parentwait":
                    return Tree.ParentWait();
                case "sleep":
                    return Tree.Sleep(IntArg(args, 1, 60));
                case "collectible":
                {
                    bool hold = args[^1] == "hold";
                    int rc = Collectible.Run(IntArg(args, 1, 10), IntArg(args, 2, 100),
                                             args.Length > 3 && args[3] != "hold" ? args[3] : null);
                    return hold ? Serve("holding") : rc;
                }
                case "variant":
                    return Variant.Run(args.Length > 1 ? args[1] : "");
                case "pair":
                    return Variant.Pair();
                case "code":
                    return CodeWork.Run();
                case "calls":
                    return CallWork.Run();
                case "dyncollect":
                    return DynCollect.Run(IntArg(args, 1, 1000), IntArg(args, 2, 50), IntArg(args, 3, 200), args.Length > 4 && args[4] == "hold");
                case "threads":
                    return ThreadChurn.Run(IntArg(args, 1, 300), IntArg(args, 2, 5));
                case "throws":
                    return Throws.Run(Array.IndexOf(args, "wait") > 0, Array.IndexOf(args, "child") > 0);
                case "unhandled":
                    return Throws.Unhandled();
                case "throwstorm":
                    return Throws.Storm(IntArg(args, 1, 200000));
                case "allocs":
                    return Allocs.Run(IntArg(args, 1, 500), Array.IndexOf(args, "wait") > 0);
                case "requests":
                    return Requests.Run(IntArg(args, 1, 100000));
                default:
                    Console.Error.WriteLine("usage: E2eTarget [run | serve | spin SECONDS | jitstorm N [rate R] [hold] | emitstorm N [hold] | names | parent | sleep SECONDS | dynstorm N | collectible ROUNDS METHODS [LONGDIR] [hold] | variant a|b | pair | code | dyncollect N BATCH SPIN_US [hold] | threads N BATCH]");
                    return 2;
            }
        }

        /// <summary>Writes one stdout line and flushes it immediately.</summary>
        public static void Out(string line)
        {
            Console.Out.WriteLine(line);
            Console.Out.Flush();
        }

        static int IntArg(string[] args, int index, int fallback)
        {
            if (args.Length <= index) return fallback;
            if (int.TryParse(args[index], out int v) && v >= 0) return v;
            Console.Error.WriteLine($"E2eTarget: bad number '{args[index]}'");
            Environment.Exit(2);
            return fallback;
        }

        static int PositiveArg(string[] args, int index)
        {
            if (args.Length > index && int.TryParse(args[index], out int v) && v > 0) return v;
            Console.Error.WriteLine($"E2eTarget: a rate wants a number above 0, not '{(args.Length > index ? args[index] : "")}'");
            Environment.Exit(2);
            return 0;
        }

        // ---------------------------------------------------------------- scenario

        static void RunScenario()
        {
            Out("e2e-target start");
            ulong sum = Checksum.Seed;

            long alpha = Probe.UniqueAlpha();
            Out("alpha " + alpha);
            sum = Checksum.Add(sum, alpha);

            string gi = Probe.UniqueGeneric<int>(7);
            Out("generic-int " + gi);
            sum = Checksum.Add(sum, gi);

            string gs = Probe.UniqueGeneric<string>("seven");
            Out("generic-string " + gs);
            sum = Checksum.Add(sum, gs);

            long nested = Outer.Inner.UniqueNested();
            Out("nested " + nested);
            sum = Checksum.Add(sum, nested);

            long lambda = Probe.UniqueLambdaHost();
            Out("lambda " + lambda);
            sum = Checksum.Add(sum, lambda);

            long boxed = new Box<long>(1234567890123L).UniqueBoxGet();
            Out("box-long " + boxed);
            sum = Checksum.Add(sum, boxed);

            long threadResult = RunNamedThread();
            Out("thread " + NamedThreadName + " " + threadResult);
            sum = Checksum.Add(sum, threadResult);

            long calc = Probe.Calc(5);
            long acc = 10;
            calc += Probe.Calc(6, ref acc);
            calc += Probe.Calc(new[] { "a", "bb" }, out int parts) + parts;
            calc += (long)Probe.Calc(new System.Collections.Generic.List<double> { 1.5 }, new double[2, 2]);
            Out("calc " + calc);
            sum = Checksum.Add(sum, calc);

            long mixed = new Box<long>(2).UniqueBoxMix(40, new Box<long>(0));
            Out("box-mix " + mixed);
            sum = Checksum.Add(sum, mixed);

            long dynamic = Probe.UniqueDynamic();
            Out("dynamic " + dynamic);
            sum = Checksum.Add(sum, dynamic);

            string plugin = CallPlugin();
            Out("plugin E2ePlugin JitscopePlugin.PluginEntry.UniquePluginMethod " + plugin);
            sum = Checksum.Add(sum, plugin);

            Out("checksum " + sum.ToString("x16"));
        }

        /// <summary>Starts a thread that names itself "e2e-named-thread", does a little work, and joins it.</summary>
        static long RunNamedThread()
        {
            long result = 0;
            var thread = new Thread(() =>
            {
                // Named from inside the running thread, so a profiler sees
                // ThreadCreated first and then ThreadNameChanged for the same ThreadID.
                Thread.CurrentThread.Name = NamedThreadName;
                result = Probe.UniqueThreadWork();
            });
            thread.Start();
            thread.Join();
            return result;
        }

        /// <summary>Loads E2ePlugin.dll from next to this exe and calls its unique method via reflection.</summary>
        internal static string CallPlugin()
        {
            string path = Path.Combine(AppContext.BaseDirectory, "E2ePlugin.dll");
            Assembly asm = Assembly.LoadFrom(path);
            Type type = asm.GetType("JitscopePlugin.PluginEntry", throwOnError: true)!;
            MethodInfo method = type.GetMethod("UniquePluginMethod", BindingFlags.Public | BindingFlags.Static)!;
            return (string)method.Invoke(null, null)!;
        }

        // ---------------------------------------------------------------- serve

        /// <summary>Prints <paramref name="banner"/>, then answers stdin commands until "exit" or EOF.</summary>
        static int Serve(string banner)
        {
            return Serve(banner, 0);
        }

        /// <summary>Serve, with the storm cursor at <paramref name="stormNext"/> (methods a jitstorm already compiled).</summary>
        static int Serve(string banner, int stormNext)
        {
            // A named thread that stays alive for the whole serve session, so an
            // attach-time catch-up (EnumThreads) can find it with its name. The
            // name fits Linux's 15-byte thread name, which is where catch-up reads it.
            var keeper = new Thread(() => Thread.Sleep(Timeout.Infinite))
            {
                Name = KeeperThreadName,
                IsBackground = true,
            };
            keeper.Start();
            Out(banner);
            long ticks = 0;
            string? line;
            while ((line = Console.In.ReadLine()) != null)
            {
                line = line.Trim();
                if (line.Length == 0) continue;
                if (line == "exit") break;
                if (line == "tick")
                {
                    ticks++;
                    Out("tock " + ticks);
                }
                else if (line.StartsWith("call ", StringComparison.Ordinal)
                         && int.TryParse(line.AsSpan(5), out int n))
                {
                    long? r = Late.Call(n);
                    Out(r.HasValue ? "called " + n + " " + r.Value : "error no-such-method " + n);
                }
                else if (line.StartsWith("storm ", StringComparison.Ordinal)
                         && int.TryParse(line.AsSpan(6), out int k) && k >= 0)
                {
                    int done = Storm.Run(stormNext, k, out ulong sum);
                    stormNext += done;
                    Out("stormed " + done + " " + sum.ToString("x16"));
                }
                else if (line == "tracing")
                {
                    Out("tracing " + RuntimeTracing());
                }
                else if (line.StartsWith("pace ", StringComparison.Ordinal) && ParsePace(line.AsSpan(5), out int pk, out int rate))
                {
                    int done = Storm.RunPaced(stormNext, pk, rate, out ulong sum, out double ms);
                    stormNext += done;
                    Console.Error.WriteLine($"pace: {done} methods in {ms:F1} ms, {PerSecond(done, ms):F0}/s (asked {rate}/s)");
                    Out("paced " + done + " " + sum.ToString("x16"));
                }
                else
                {
                    Out("error unknown-command " + line);
                }
            }
            Out("bye");
            return 0;
        }

        /// <summary>"on" while some EventPipe session (or listener) has the runtime's
        /// provider, Microsoft-Windows-DotNETRuntime, enabled: its managed half
        /// (NativeRuntimeEventSource) is told of every session that enables or
        /// disables it; "off" when none does, "absent" when it was never made.</summary>
        static string RuntimeTracing()
        {
            foreach (var source in System.Diagnostics.Tracing.EventSource.GetSources())
                if (source.Name == "Microsoft-Windows-DotNETRuntime")
                    return source.IsEnabled() ? "on" : "off";
            return "absent";
        }

        /// <summary>"K R": K >= 0 methods at R > 0 per second.</summary>
        static bool ParsePace(ReadOnlySpan<char> s, out int k, out int rate)
        {
            rate = 0;
            int sp = s.IndexOf(' ');
            if (sp < 0 || !int.TryParse(s[..sp], out k) || k < 0) { k = 0; return false; }
            return int.TryParse(s[(sp + 1)..].Trim(), out rate) && rate > 0;
        }

        static double PerSecond(int count, double ms) => ms > 0 ? count * 1000.0 / ms : 0;

        // ---------------------------------------------------------------- spin

        /// <summary>Steady CPU work for <paramref name="seconds"/> s; "alive n" once per second.</summary>
        static int Spin(int seconds)
        {
            Out("spin " + seconds);
            var clock = Stopwatch.StartNew();
            ulong acc = Checksum.Seed;
            long units = 0;
            for (int s = 1; s <= seconds; s++)
            {
                long deadlineMs = s * 1000L;
                while (clock.ElapsedMilliseconds < deadlineMs)
                {
                    acc = SpinWork(acc);
                    units++;
                }
                Out("alive " + s);
            }
            Out("spin done");
            // Non-deterministic throughput figure, for benchmarks: stderr only.
            Console.Error.WriteLine($"spin: {units} work units in {clock.ElapsedMilliseconds} ms (acc {acc & 0xff})");
            return 0;
        }

        /// <summary>One unit of spin work (~ a few microseconds).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static ulong SpinWork(ulong acc)
        {
            for (int i = 0; i < 1000; i++)
                acc = (acc ^ (ulong)i) * 0x100000001b3UL;
            return acc;
        }

        // ---------------------------------------------------------------- jitstorm

        /// <summary>jitstorm N [rate R] [hold]; rate 0: as fast as it goes.</summary>
        static int JitStorm(int n, int rate, bool hold)
        {
            var clock = Stopwatch.StartNew();
            ulong sum;
            double pacedMs = 0;
            int done = rate > 0 ? Storm.RunPaced(0, n, rate, out sum, out pacedMs) : Storm.Run(n, out sum);
            clock.Stop();
            Out("jitstorm " + n + " methods " + done);
            Out("checksum " + sum.ToString("x16"));
            Out("jitted");
            Console.Error.WriteLine($"jitstorm: {done} methods in {clock.ElapsedMilliseconds} ms");
            if (rate > 0)
                Console.Error.WriteLine($"jitstorm: paced at {PerSecond(done, pacedMs):F0}/s (asked {rate}/s)");
            // the whole process so far (runtime start, every thread: also an agent's)
            Console.Error.WriteLine($"jitstorm: process cpu {(long)Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds} ms");
            return hold ? Serve("holding", done) : 0;
        }

        // ---------------------------------------------------------------- names

        /// <summary>Prints the metadata names of the unique methods, as reflection sees them.</summary>
        static void PrintNames()
        {
            void Show(Type t, string method)
            {
                const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly;
                foreach (MethodInfo m in t.GetMethods(all))
                    if (m.Name == method)
                        Out(t.FullName + "::" + m.Name + (m.IsGenericMethodDefinition ? "<" + m.GetGenericArguments().Length + ">" : ""));
            }
            Show(typeof(Probe), "UniqueAlpha");
            Show(typeof(Probe), "UniqueGeneric");
            Show(typeof(Outer.Inner), "UniqueNested");
            Show(typeof(Probe), "UniqueLambdaHost");
            foreach (Type nestedType in typeof(Probe).GetNestedTypes(BindingFlags.NonPublic | BindingFlags.Public))
                foreach (MethodInfo m in nestedType.GetMethods(BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly))
                    if (m.Name.Contains("UniqueLambdaHost", StringComparison.Ordinal))
                        Out(nestedType.FullName + "::" + m.Name);
            Show(typeof(Box<>), "UniqueBoxGet");
            Show(typeof(Probe), "UniqueThreadWork");
            Out("JitscopePlugin.PluginEntry::UniquePluginMethod");
            Show(typeof(Late), "LateMethod01");
            Out("... through JitscopeE2e.Late::LateMethod" + Late.Count.ToString("00"));
            Show(typeof(Storm), "Combo3");
            Show(typeof(Storm), "Combo2");
            Show(typeof(Storm), "Combo1");
            Out("thread " + NamedThreadName);
        }
    }

    /// <summary>The uniquely named methods of the scenario.</summary>
    public static class Probe
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long UniqueAlpha()
        {
            long s = 0;
            for (int i = 1; i <= 100; i++) s += (long)i * i;
            return s; // 338350
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string UniqueGeneric<T>(T x)
        {
            return typeof(T).Name + "(" + x + ")";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long UniqueLambdaHost()
        {
            Func<int, long> square = i => (long)i * i + 3;
            long s = 0;
            for (int i = 0; i < 10; i++) s += square(i);
            return s; // 315
        }

        // Four overloads: only their parameter lists tell them apart.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Calc(int x) => x * 3L; // 15

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Calc(int x, ref long acc) { acc += x; return acc; } // 16

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Calc(string[] parts, out int count) { count = parts.Length; return parts[1].Length; } // 2 + 2

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static T Calc<T>(System.Collections.Generic.List<T> xs, T[,] grid) => grid.Length > 0 ? xs[0] : default!; // 1.5 -> 1

        /// <summary>Emits, JITs and calls a DynamicMethod named JitscopeE2eDynamicAdd(long, int).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long UniqueDynamic()
        {
            var method = new System.Reflection.Emit.DynamicMethod("JitscopeE2eDynamicAdd", typeof(long),
                new[] { typeof(long), typeof(int) }, typeof(Probe).Module);
            var il = method.GetILGenerator();
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_1);
            il.Emit(System.Reflection.Emit.OpCodes.Conv_I8);
            il.Emit(System.Reflection.Emit.OpCodes.Add);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            var add = (Func<long, int, long>)method.CreateDelegate(typeof(Func<long, int, long>));
            return add(40, 2); // 42
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long UniqueThreadWork()
        {
            long a = 0, b = 1;
            for (int i = 0; i < 50; i++) (a, b) = (b, a + b);
            return a; // fib(50) = 12586269025
        }
    }

    public static class Outer
    {
        public static class Inner
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static long UniqueNested()
            {
                long p = 1;
                for (int i = 1; i <= 15; i++) p *= i;
                return p; // 15! = 1307674368000
            }
        }
    }

    public sealed class Box<T>
    {
        private readonly T _value;

        public Box(T value) { _value = value; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public T UniqueBoxGet() => _value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public long UniqueBoxMix(T value, Box<T> other) => Convert.ToInt64(value) + Convert.ToInt64(_value) + Convert.ToInt64(other._value); // 42
    }

    /// <summary>Deterministic 64-bit FNV-1a, used for the printed checksums.</summary>
    public static class Checksum
    {
        public const ulong Seed = 14695981039346656037UL;

        public static ulong Add(ulong h, long v)
        {
            for (int i = 0; i < 8; i++)
            {
                h ^= (byte)(v >> (8 * i));
                h *= 1099511628211UL;
            }
            return h;
        }

        public static ulong Add(ulong h, string s)
        {
            foreach (char c in s)
            {
                h ^= c;
                h *= 1099511628211UL;
            }
            return h;
        }
    }
}
