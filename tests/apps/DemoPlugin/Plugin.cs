// DemoPlugin — a class library that the jitscope Demo loads about 5 seconds in,
// through its own AssemblyLoadContext (it is NOT a compile-time reference of
// Demo). Watching Demo, you see a new module appear and its methods start to
// be JIT-compiled: JitscopeDemoPlugin.Plugin.Work and a few generic
// instantiations of JitscopeDemoPlugin.Accumulator<T> over the plugin's own structs.

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;

namespace JitscopeDemoPlugin
{
    public interface ISample
    {
        double Value { get; }
    }

    public readonly record struct Celsius(double Value) : ISample;
    public readonly record struct Meters(double Value) : ISample;
    public readonly record struct Grams(double Value) : ISample;
    public readonly record struct Seconds(double Value) : ISample;

    /// <summary>Generic over the plugin's structs: each T is a new set of JIT-compiled methods.</summary>
    public sealed class Accumulator<T> where T : struct, ISample
    {
        private readonly List<T> _items = new();

        public void Add(T item) => _items.Add(item);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public double Mean() => _items.Count == 0 ? 0 : _items.Average(x => x.Value);
    }

    public static class Plugin
    {
        public static string Hello() => "DemoPlugin ready";

        /// <summary>Called by Demo once per wave after loading. The first waves bring new instantiations.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Work(int wave)
        {
            double mean = (wave % 4) switch
            {
                0 => Fill(new Accumulator<Celsius>(), wave, v => new Celsius(v)),
                1 => Fill(new Accumulator<Meters>(), wave, v => new Meters(v)),
                2 => Fill(new Accumulator<Grams>(), wave, v => new Grams(v)),
                _ => Fill(new Accumulator<Seconds>(), wave, v => new Seconds(v)),
            };
            return "plugin mean " + mean.ToString("F1");
        }

        private static double Fill<T>(Accumulator<T> acc, int wave, Func<double, T> make) where T : struct, ISample
        {
            foreach (int i in Enumerable.Range(wave, 32))
                acc.Add(make(i * 0.5));
            return acc.Mean();
        }
    }
}
