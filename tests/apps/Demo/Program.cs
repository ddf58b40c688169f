// Demo — the bundled demo app that `make run` starts and jitscope watches.
//
// It keeps the JIT busy in ways worth watching, one "wave" every ~0.75 s:
//   * a new generic instantiation per wave: Kernel<A,B> over a pair of 16
//     predeclared value-type structs (256 pairs), reached with MakeGenericType;
//     each pair also brings List<A>, Dictionary<A,B>, List<(A,B)> (built with
//     typeof(List<>).MakeGenericType), LINQ operators and lambdas over A and B —
//     all separate JIT-compiled code, because value-type instantiations are never shared;
//   * a new Regex with RegexOptions.Compiled (its matcher is emitted as
//     DynamicMethods) and, every few waves, a compiled System.Linq.Expressions lambda;
//   * named threads "demo-worker-N" started and stopped over time (at most 3 alive),
//     each running Worker<S> over one of the structs;
//   * about 5 s in, it loads DemoPlugin.dll (next to Demo.dll, NOT a compile-time
//     reference) into its own AssemblyLoadContext and calls into it every wave.
// After all 256 pairs (about 3.2 minutes) it settles into a steady state: the
// same work repeats, so only tier-up re-JITs remain, while worker threads keep
// coming and going.
//
// Usage: dotnet Demo.dll [--seconds N] [--wave-ms MS]
//   --seconds N   stop after N seconds (default: run until killed)
//   --wave-ms MS  time between waves (default 750)
// Prints one short line per wave (plus a line when a thread starts or stops
// and when the plugin is loaded) to stdout.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text.RegularExpressions;
using System.Threading;

namespace JitscopeDemo
{
    public static class Program
    {
        const double PluginAfterSeconds = 5.0;
        const int MaxWorkers = 3;

        static readonly Type[] Structs =
        {
            typeof(Vec2), typeof(Vec3), typeof(Rgb), typeof(Money),
            typeof(Temp), typeof(Angle), typeof(Ratio), typeof(Score),
            typeof(GeoPoint), typeof(Span2), typeof(Tick), typeof(Bits),
            typeof(Mass), typeof(Speed), typeof(Volume), typeof(Pixel),
        };

        static int PairCount => Structs.Length * Structs.Length;

        public static int Main(string[] args)
        {
            double seconds = 0;
            int waveMs = 750;
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == "--seconds" && i + 1 < args.Length && double.TryParse(args[++i], out double s) && s >= 0)
                    seconds = s;
                else if (args[i] == "--wave-ms" && i + 1 < args.Length && int.TryParse(args[++i], out int w) && w > 0)
                    waveMs = w;
                else
                {
                    Console.Error.WriteLine("usage: Demo [--seconds N] [--wave-ms MS]");
                    return 2;
                }
            }

            Say($"demo: pid {Environment.ProcessId}, a wave every {waveMs} ms, "
                + (seconds > 0 ? $"for {seconds} s" : "until killed")
                + $"; {PairCount} generic pairs to go, then steady state");

            var clock = Stopwatch.StartNew();
            var workers = new List<Worker>();
            int nextWorker = 1;
            MethodInfo? pluginWork = null;
            Regex steadyRegex = new Regex(@"(\w+)-(\d+)", RegexOptions.Compiled);

            for (int wave = 0; seconds <= 0 || clock.Elapsed.TotalSeconds < seconds; wave++)
            {
                double t = clock.Elapsed.TotalSeconds;
                bool discovering = wave < PairCount;

                // 1. generic instantiations + LINQ + lambdas (new pair while discovering)
                int pair = wave % PairCount;
                Type a = Structs[pair / Structs.Length], b = Structs[pair % Structs.Length];
                string kernel = RunKernel(a, b, wave);

                // 2. regex: a new compiled one per wave while discovering, then a fixed one
                int matches = discovering ? CompiledRegex(wave) : steadyRegex.Matches("demo-1 demo-22 x-3").Count;

                // 3. an expression tree compiled to a DynamicMethod every 4th discovering wave
                if (discovering && wave % 4 == 0)
                    CompiledExpression(wave);

                // 4. worker threads: stop the ones whose time is up, start a new one every 3rd wave
                foreach (Worker done in workers.Where(x => x.StopAtWave <= wave).ToList())
                {
                    done.Stop();
                    workers.Remove(done);
                    Say($"thread stop  {done.Name} ({done.Rounds} rounds)");
                }
                if (wave % 3 == 0 && workers.Count < MaxWorkers)
                {
                    int n = nextWorker++;
                    var worker = new Worker(n, Structs[n % Structs.Length], wave + 4 + n % 5);
                    workers.Add(worker);
                    Say($"thread start {worker.Name} (Worker<{Structs[n % Structs.Length].Name}>)");
                }

                // 5. the plugin, loaded once about 5 s in, then called every wave
                if (pluginWork == null && t >= PluginAfterSeconds)
                    pluginWork = LoadPlugin();
                string plugin = pluginWork != null ? (string)pluginWork.Invoke(null, new object[] { wave })! : "-";

                Say($"wave {wave,4}  t={t,6:F1}s  {(discovering ? "new " : "same")} {kernel,-30} "
                    + $"regex {matches}  workers {workers.Count}  {plugin}");
                if (wave == PairCount - 1)
                    Say("demo: all generic pairs done; steady state from now on");

                // sleep until the next wave is due
                long dueMs = (long)(wave + 1) * waveMs;
                long sleepMs = dueMs - clock.ElapsedMilliseconds;
                if (seconds > 0)
                    sleepMs = Math.Min(sleepMs, (long)(seconds * 1000) - clock.ElapsedMilliseconds);
                if (sleepMs > 0)
                    Thread.Sleep((int)sleepMs);
            }

            foreach (Worker w in workers)
            {
                w.Stop();
                Say($"thread stop  {w.Name} ({w.Rounds} rounds)");
            }
            Say($"demo: done after {clock.Elapsed.TotalSeconds:F1} s");
            return 0;
        }

        static void Say(string line)
        {
            Console.Out.WriteLine(line);
            Console.Out.Flush();
        }

        /// <summary>Runs Kernel&lt;a,b&gt;.Run(wave) through MakeGenericType + reflection.</summary>
        static string RunKernel(Type a, Type b, int wave)
        {
            Type kernel = typeof(Kernel<,>).MakeGenericType(a, b);
            MethodInfo run = kernel.GetMethod(nameof(Kernel<Vec2, Vec2>.Run), BindingFlags.Public | BindingFlags.Static)!;
            double result = (double)run.Invoke(null, new object[] { wave })!;
            // List<(A,B)>: another instantiation, built with typeof(List<>).MakeGenericType
            Type tupleList = typeof(List<>).MakeGenericType(typeof(ValueTuple<,>).MakeGenericType(a, b));
            var list = (System.Collections.IList)Activator.CreateInstance(tupleList)!;
            list.Add(Activator.CreateInstance(typeof(ValueTuple<,>).MakeGenericType(a, b)));
            return $"Kernel<{a.Name},{b.Name}>={result:F0}";
        }

        /// <summary>Builds and uses a new compiled Regex (a different pattern each wave).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CompiledRegex(int wave)
        {
            string pattern = $@"\b(demo|wave|w{wave % 97})-(\d{{1,{1 + wave % 5}}})\b";
            var regex = new Regex(pattern, RegexOptions.Compiled | RegexOptions.CultureInvariant);
            return regex.Matches($"demo-1 wave-{wave} w{wave % 97}-7 other-9").Count;
        }

        /// <summary>Compiles a small expression tree: x => x * k + wave.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CompiledExpression(int wave)
        {
            ParameterExpression x = Expression.Parameter(typeof(int), "x");
            Expression body = Expression.Add(Expression.Multiply(x, Expression.Constant(wave % 7 + 2)), Expression.Constant(wave));
            Func<int, int> f = Expression.Lambda<Func<int, int>>(body, x).Compile();
            return f(3);
        }

        /// <summary>Loads DemoPlugin.dll from next to Demo.dll into its own AssemblyLoadContext.</summary>
        static MethodInfo? LoadPlugin()
        {
            string path = Path.Combine(AppContext.BaseDirectory, "DemoPlugin.dll");
            try
            {
                var alc = new AssemblyLoadContext("demo-plugin");
                Assembly asm = alc.LoadFromAssemblyPath(path);
                Type plugin = asm.GetType("JitscopeDemoPlugin.Plugin", throwOnError: true)!;
                string hello = (string)plugin.GetMethod("Hello")!.Invoke(null, null)!;
                Say($"plugin loaded: {asm.GetName().Name} {asm.GetName().Version} into ALC 'demo-plugin' ({hello})");
                return plugin.GetMethod("Work", BindingFlags.Public | BindingFlags.Static);
            }
            catch (Exception e) when (e is IOException || e is BadImageFormatException || e is TypeLoadException)
            {
                Say($"plugin NOT loaded from {path}: {e.GetType().Name}: {e.Message}");
                return null;
            }
        }
    }

    /// <summary>A worker thread named "demo-worker-N" running Worker&lt;S&gt; until stopped.</summary>
    sealed class Worker
    {
        private readonly Thread _thread;
        private volatile bool _stop;
        private long _rounds;

        public Worker(int n, Type structType, int stopAtWave)
        {
            StopAtWave = stopAtWave;
            MethodInfo round = typeof(WorkerLoop<>).MakeGenericType(structType)
                .GetMethod(nameof(WorkerLoop<Vec2>.Round), BindingFlags.Public | BindingFlags.Static)!;
            var step = round.CreateDelegate<Func<int, double>>();
            _thread = new Thread(() =>
            {
                for (int i = 0; !_stop; i++)
                {
                    step(i);
                    Interlocked.Increment(ref _rounds);
                    Thread.Sleep(50);
                }
            });
            _thread.Name = "demo-worker-" + n; // named before Start
            _thread.IsBackground = true;
            _thread.Start();
        }

        public string Name => _thread.Name!;
        public int StopAtWave { get; }
        public long Rounds => Interlocked.Read(ref _rounds);

        public void Stop()
        {
            _stop = true;
            _thread.Join();
        }
    }

    /// <summary>What a worker thread runs: a little LINQ over a list of S.</summary>
    static class WorkerLoop<S> where S : struct, IDemoValue<S>
    {
        public static double Round(int i)
        {
            var items = new List<S>();
            for (int k = 0; k < 100; k++) items.Add(S.From(i + k));
            return items.Select(s => s.Magnitude).Where(m => m > 1).DefaultIfEmpty().Max();
        }
    }

    /// <summary>The per-wave generic workload over a pair of value types.</summary>
    static class Kernel<A, B> where A : struct, IDemoValue<A> where B : struct, IDemoValue<B>
    {
        public static double Run(int wave)
        {
            var left = new List<A>();
            var right = new List<B>();
            for (int i = 0; i < 64; i++)
            {
                left.Add(A.From(i + wave));
                right.Add(B.From(i * 3 + 1));
            }

            double zipped = left.Zip(right, (x, y) => x.Magnitude * y.Magnitude)
                                .Where(v => v > 10)
                                .Select(Math.Sqrt)
                                .Sum();

            var map = new Dictionary<A, B>();
            for (int i = 0; i < left.Count; i++)
                map[left[i]] = right[i];

            A[] smallest = left.OrderBy(x => x.Magnitude).Take(5).ToArray();
            var groups = right.GroupBy(y => (int)y.Magnitude % 4).Select(g => g.Count()).ToList();

            return zipped + map.Count + smallest.Length + groups.Count;
        }
    }

    /// <summary>The demo's value types: each one yields new JIT work in every generic it meets.</summary>
    public interface IDemoValue<TSelf> where TSelf : struct, IDemoValue<TSelf>
    {
        static abstract TSelf From(int i);
        double Magnitude { get; }
    }

    public readonly record struct Vec2(double X, double Y) : IDemoValue<Vec2>
    { public static Vec2 From(int i) => new(i, i * 0.5); public double Magnitude => Math.Sqrt(X * X + Y * Y); }
    public readonly record struct Vec3(double X, double Y, double Z) : IDemoValue<Vec3>
    { public static Vec3 From(int i) => new(i, -i, i * 2); public double Magnitude => Math.Sqrt(X * X + Y * Y + Z * Z); }
    public readonly record struct Rgb(byte R, byte G, byte B) : IDemoValue<Rgb>
    { public static Rgb From(int i) => new((byte)i, (byte)(i * 3), (byte)(i * 7)); public double Magnitude => R + G + B; }
    public readonly record struct Money(long Cents, int Currency) : IDemoValue<Money>
    { public static Money From(int i) => new(i * 125, i % 3); public double Magnitude => Cents / 100.0; }
    public readonly record struct Temp(double Kelvin) : IDemoValue<Temp>
    { public static Temp From(int i) => new(273.15 + i); public double Magnitude => Kelvin - 273.15; }
    public readonly record struct Angle(float Radians) : IDemoValue<Angle>
    { public static Angle From(int i) => new(i * 0.1f); public double Magnitude => Math.Abs(Math.Sin(Radians)) * 100; }
    public readonly record struct Ratio(int Num, int Den) : IDemoValue<Ratio>
    { public static Ratio From(int i) => new(i, i % 7 + 1); public double Magnitude => (double)Num / Den; }
    public readonly record struct Score(short Points, bool Bonus) : IDemoValue<Score>
    { public static Score From(int i) => new((short)(i * 11), i % 2 == 0); public double Magnitude => Points + (Bonus ? 50 : 0); }
    public readonly record struct GeoPoint(double Lat, double Lon) : IDemoValue<GeoPoint>
    { public static GeoPoint From(int i) => new(i % 90, i % 180); public double Magnitude => Lat + Lon; }
    public readonly record struct Span2(int Start, int Length) : IDemoValue<Span2>
    { public static Span2 From(int i) => new(i, i % 13); public double Magnitude => Start + Length; }
    public readonly record struct Tick(long Value) : IDemoValue<Tick>
    { public static Tick From(int i) => new(i * 10_000L); public double Magnitude => Value / 1000.0; }
    public readonly record struct Bits(uint Mask) : IDemoValue<Bits>
    { public static Bits From(int i) => new((uint)i * 2654435761u); public double Magnitude => uint.PopCount(Mask); }
    public readonly record struct Mass(decimal Grams) : IDemoValue<Mass>
    { public static Mass From(int i) => new(i * 1.5m); public double Magnitude => (double)Grams; }
    public readonly record struct Speed(double MetersPerSecond) : IDemoValue<Speed>
    { public static Speed From(int i) => new(i * 0.3); public double Magnitude => MetersPerSecond * 3.6; }
    public readonly record struct Volume(int Milliliters, byte Unit) : IDemoValue<Volume>
    { public static Volume From(int i) => new(i * 250, (byte)(i % 4)); public double Magnitude => Milliliters / 1000.0; }
    public readonly record struct Pixel(ushort X, ushort Y, int Argb) : IDemoValue<Pixel>
    { public static Pixel From(int i) => new((ushort)i, (ushort)(i * 2), i * 0x010101); public double Magnitude => X + Y; }
}
