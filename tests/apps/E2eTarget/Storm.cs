// Storm.cs — E2eTarget's "jitstorm" mode: make the JIT compile many distinct
// real methods quickly, for jitscope's benchmarks (~1,000 and ~20,000 methods).
//
// Every instantiation of a generic method over value types is a separate
// method body that the JIT compiles on its own (value-type instantiations are
// never shared). With 30 structs S00..S29 this gives
//   Combo3<A,B,C>  30^3 = 27000 instantiations
//   Combo2<A,B>    30^2 =   900
//   Combo1<A>      30   =    30
// i.e. Capacity = 27930 distinct JIT-compiled methods, each with real metadata
// (JitscopeE2e.Storm.Combo3<JitscopeE2e.S00,JitscopeE2e.S07,JitscopeE2e.S29> ...).
// They are instantiated with MakeGenericMethod and called once each via
// reflection, in a fixed order, and summed into a deterministic checksum.
// RunPaced compiles the same methods at a given rate per second (bench/endtoend.mjs
// measures the agent's sender and the server at 20,000 JITs/s with it).

using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    /// <summary>Gives each storm struct a distinct constant, read in the generic bodies.</summary>
    public interface IWeight
    {
        int Weight { get; }
    }

    public struct S00 : IWeight { public int Weight => 1; }
    public struct S01 : IWeight { public int Weight => 2; }
    public struct S02 : IWeight { public int Weight => 3; }
    public struct S03 : IWeight { public int Weight => 4; }
    public struct S04 : IWeight { public int Weight => 5; }
    public struct S05 : IWeight { public int Weight => 6; }
    public struct S06 : IWeight { public int Weight => 7; }
    public struct S07 : IWeight { public int Weight => 8; }
    public struct S08 : IWeight { public int Weight => 9; }
    public struct S09 : IWeight { public int Weight => 10; }
    public struct S10 : IWeight { public int Weight => 11; }
    public struct S11 : IWeight { public int Weight => 12; }
    public struct S12 : IWeight { public int Weight => 13; }
    public struct S13 : IWeight { public int Weight => 14; }
    public struct S14 : IWeight { public int Weight => 15; }
    public struct S15 : IWeight { public int Weight => 16; }
    public struct S16 : IWeight { public int Weight => 17; }
    public struct S17 : IWeight { public int Weight => 18; }
    public struct S18 : IWeight { public int Weight => 19; }
    public struct S19 : IWeight { public int Weight => 20; }
    public struct S20 : IWeight { public int Weight => 21; }
    public struct S21 : IWeight { public int Weight => 22; }
    public struct S22 : IWeight { public int Weight => 23; }
    public struct S23 : IWeight { public int Weight => 24; }
    public struct S24 : IWeight { public int Weight => 25; }
    public struct S25 : IWeight { public int Weight => 26; }
    public struct S26 : IWeight { public int Weight => 27; }
    public struct S27 : IWeight { public int Weight => 28; }
    public struct S28 : IWeight { public int Weight => 29; }
    public struct S29 : IWeight { public int Weight => 30; }

    public static class Storm
    {
        public const int Capacity = 30 * 30 * 30 + 30 * 30 + 30;

        static readonly Type[] Structs =
        {
            typeof(S00), typeof(S01), typeof(S02), typeof(S03), typeof(S04), typeof(S05), typeof(S06), typeof(S07), typeof(S08), typeof(S09),
            typeof(S10), typeof(S11), typeof(S12), typeof(S13), typeof(S14), typeof(S15), typeof(S16), typeof(S17), typeof(S18), typeof(S19),
            typeof(S20), typeof(S21), typeof(S22), typeof(S23), typeof(S24), typeof(S25), typeof(S26), typeof(S27), typeof(S28), typeof(S29),
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo3<A, B, C>(long seed)
            where A : struct, IWeight where B : struct, IWeight where C : struct, IWeight
        {
            return seed * 31 + default(A).Weight * 10000L + default(B).Weight * 100L + default(C).Weight;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo2<A, B>(long seed)
            where A : struct, IWeight where B : struct, IWeight
        {
            return seed * 37 + default(A).Weight * 100L + default(B).Weight;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo1<A>(long seed)
            where A : struct, IWeight
        {
            return seed * 41 + default(A).Weight;
        }

        /// <summary>
        /// Instantiates and calls the first min(n, Capacity) combinations (Combo3
        /// first, then Combo2, then Combo1), each exactly once. Returns how many.
        /// </summary>
        public static int Run(int n, out ulong sum) => Run(0, n, out sum);

        /// <summary>
        /// The combinations start .. start+n-1 (clamped to Capacity), each called
        /// once: a later call with the next start JITs only methods never compiled
        /// before. Returns how many.
        /// </summary>
        public static int Run(int start, int n, out ulong sum)
        {
            int first = Math.Max(start, 0);
            int end = (int)Math.Min((long)first + n, Capacity);
            sum = Checksum.Seed;
            Call(first, end, ref sum);
            return Math.Max(end - first, 0);
        }

        /// <summary>
        /// The same methods as Run(start, n), JIT-compiled at <paramref name="rate"/>
        /// per second: every ~1 ms slice (Thread.Sleep(1) while ahead) compiles the
        /// methods due by then, so a slice that overslept catches up in the next.
        /// The checksum is Run's. <paramref name="elapsedMs"/> is the storm's wall
        /// time (first method to last); count / elapsedMs is the achieved rate.
        /// </summary>
        public static int RunPaced(int start, int n, int rate, out ulong sum, out double elapsedMs)
        {
            int first = Math.Max(start, 0);
            int total = Math.Max((int)Math.Min((long)first + n, Capacity) - first, 0);
            sum = Checksum.Seed;
            var clock = Stopwatch.StartNew();
            int done = 0;
            while (done < total)
            {
                // method k is due at k / rate seconds: the first at once
                int due = (int)Math.Min(total, (long)(clock.Elapsed.TotalSeconds * rate) + 1);
                if (due > done)
                {
                    Call(first + done, first + due, ref sum);
                    done = due;
                }
                else
                {
                    Thread.Sleep(1);
                }
            }
            elapsedMs = clock.Elapsed.TotalMilliseconds;
            return total;
        }

        static readonly MethodInfo C3 = typeof(Storm).GetMethod(nameof(Combo3), BindingFlags.Public | BindingFlags.Static)!;
        static readonly MethodInfo C2 = typeof(Storm).GetMethod(nameof(Combo2), BindingFlags.Public | BindingFlags.Static)!;
        static readonly MethodInfo C1 = typeof(Storm).GetMethod(nameof(Combo1), BindingFlags.Public | BindingFlags.Static)!;

        /// <summary>Instantiates and calls the combinations start .. end-1 in order, summed into sum.</summary>
        static void Call(int start, int end, ref ulong sum)
        {
            object[] args = { 7L };
            for (int k = start; k < end; k++)
            {
                MethodInfo m;
                if (k < 27000)
                    m = C3.MakeGenericMethod(Structs[k / 900], Structs[k / 30 % 30], Structs[k % 30]);
                else if (k < 27900)
                    m = C2.MakeGenericMethod(Structs[(k - 27000) / 30], Structs[(k - 27000) % 30]);
                else
                    m = C1.MakeGenericMethod(Structs[k - 27900]);
                sum = Checksum.Add(sum, (long)m.Invoke(null, args)!);
            }
        }
    }
}
