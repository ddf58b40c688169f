// Churn.cs — StackTarget's "churn" mode: keep the runtime busy with what makes
// stack walks hard (new JIT-compiled code, garbage collections, threads starting
// and ending) while a tool takes snapshots, and compute a deterministic result so
// a test can check the app's output is unchanged.
//
// Phase A (fixed work): 8,400 distinct generic instantiations over value types
//   (Mix3<A,B,C> 20^3 = 8,000 and Mix2<A,B> 20^2 = 400; value-type
//   instantiations are never shared, so each is its own JIT compilation), called
//   once each in a fixed order, in batches of 200; after each batch a
//   GC.Collect of generation (batch % 3) and two short-lived threads that compute
//   a known value. Prints "churn phase-a methods 8400 checksum <hex>".
// Phase B (until told to finish, at least one round): each round builds 16 new
//   DynamicMethods (16 more JIT compilations, collectible), allocates a linked
//   list and a large-object array, collects (generation round % 3), checks the
//   list survived intact, runs two short threads, and folds everything into one
//   value, which must be the same in every round. Prints the value and whether
//   every round agreed; the number of rounds is not printed (it depends on time).

using System;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Threading;

namespace StackTarget
{
    public interface IWeight
    {
        int Weight { get; }
    }

    public struct W00 : IWeight { public int Weight => 1; }
    public struct W01 : IWeight { public int Weight => 2; }
    public struct W02 : IWeight { public int Weight => 3; }
    public struct W03 : IWeight { public int Weight => 4; }
    public struct W04 : IWeight { public int Weight => 5; }
    public struct W05 : IWeight { public int Weight => 6; }
    public struct W06 : IWeight { public int Weight => 7; }
    public struct W07 : IWeight { public int Weight => 8; }
    public struct W08 : IWeight { public int Weight => 9; }
    public struct W09 : IWeight { public int Weight => 10; }
    public struct W10 : IWeight { public int Weight => 11; }
    public struct W11 : IWeight { public int Weight => 12; }
    public struct W12 : IWeight { public int Weight => 13; }
    public struct W13 : IWeight { public int Weight => 14; }
    public struct W14 : IWeight { public int Weight => 15; }
    public struct W15 : IWeight { public int Weight => 16; }
    public struct W16 : IWeight { public int Weight => 17; }
    public struct W17 : IWeight { public int Weight => 18; }
    public struct W18 : IWeight { public int Weight => 19; }
    public struct W19 : IWeight { public int Weight => 20; }

    sealed class Node
    {
        public readonly long Value;
        public readonly Node? Next;
        public Node(long value, Node? next) { Value = value; Next = next; }
    }

    public static class Churn
    {
        public const int Methods = 20 * 20 * 20 + 20 * 20;
        const int Batch = 200;

        static readonly Type[] Ws =
        {
            typeof(W00), typeof(W01), typeof(W02), typeof(W03), typeof(W04), typeof(W05), typeof(W06), typeof(W07), typeof(W08), typeof(W09),
            typeof(W10), typeof(W11), typeof(W12), typeof(W13), typeof(W14), typeof(W15), typeof(W16), typeof(W17), typeof(W18), typeof(W19),
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Mix3<A, B, C>(long seed)
            where A : struct, IWeight where B : struct, IWeight where C : struct, IWeight
        {
            return seed * 31 + default(A).Weight * 10000L + default(B).Weight * 100L + default(C).Weight;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Mix2<A, B>(long seed)
            where A : struct, IWeight where B : struct, IWeight
        {
            return seed * 37 + default(A).Weight * 100L + default(B).Weight;
        }

        /// <summary>Phase A; returns its checksum.</summary>
        public static ulong PhaseA()
        {
            const BindingFlags flags = BindingFlags.Public | BindingFlags.Static;
            MethodInfo m3 = typeof(Churn).GetMethod(nameof(Mix3), flags)!;
            MethodInfo m2 = typeof(Churn).GetMethod(nameof(Mix2), flags)!;
            object[] args = { 7L };
            ulong sum = Fnv.Seed;
            for (int k = 0; k < Methods; k++)
            {
                MethodInfo m = k < 8000
                    ? m3.MakeGenericMethod(Ws[k / 400], Ws[k / 20 % 20], Ws[k % 20])
                    : m2.MakeGenericMethod(Ws[(k - 8000) / 20], Ws[(k - 8000) % 20]);
                sum = Fnv.Add(sum, (long)m.Invoke(null, args)!);
                if ((k + 1) % Batch == 0)
                {
                    int b = k / Batch;
                    GC.Collect(b % 3, GCCollectionMode.Forced, blocking: true);
                    sum = Fnv.Add(sum, ShortThreads(b));
                }
            }
            return sum;
        }

        /// <summary>One phase-B round; the same value every time.</summary>
        public static ulong PhaseBRound(int round)
        {
            ulong v = Fnv.Seed;
            for (int k = 0; k < 16; k++)
                v = Fnv.Add(v, NewDynamicMethod(k)(12345));

            Node? list = null;
            for (int i = 0; i < 20_000; i++) list = new Node(i * 3L, list);
            byte[] large = new byte[100_000]; // large object heap
            for (int i = 0; i < large.Length; i += 1000) large[i] = (byte)(i / 1000);
            GC.Collect(round % 3, GCCollectionMode.Forced, blocking: true, compacting: true);
            long listSum = 0;
            int count = 0;
            for (Node? n = list; n != null; n = n.Next) { listSum += n.Value; count++; }
            long largeSum = 0;
            for (int i = 0; i < large.Length; i += 1000) largeSum += large[i];
            v = Fnv.Add(v, listSum);
            v = Fnv.Add(v, count);
            v = Fnv.Add(v, largeSum);
            v = Fnv.Add(v, ShortThreads(7));
            return v;
        }

        /// <summary>A new DynamicMethod computing x * (k * 7919 + 1) + k, JIT-compiled on first call.</summary>
        static Func<long, long> NewDynamicMethod(int k)
        {
            var dm = new DynamicMethod("churn_dyn_" + k, typeof(long), new[] { typeof(long) }, typeof(Churn).Module);
            ILGenerator il = dm.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I8, k * 7919L + 1);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ldc_I4, k);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
            return dm.CreateDelegate<Func<long, long>>();
        }

        /// <summary>Starts two short threads that compute from <paramref name="salt"/>, joins them, returns their sum.</summary>
        static long ShortThreads(int salt)
        {
            long r0 = 0, r1 = 0;
            var t0 = new Thread(() => r0 = ShortWork(salt)) { Name = "churn-short" };
            var t1 = new Thread(() => r1 = ShortWork(salt + 1)) { Name = "churn-short" };
            t0.Start();
            t1.Start();
            t0.Join();
            t1.Join();
            return r0 * 3 + r1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long ShortWork(int salt)
        {
            long a = salt, b = 1;
            for (int i = 0; i < 5000; i++) (a, b) = (b, (a * 31 + b + i) % 1_000_000_007L);
            return a;
        }
    }

    /// <summary>Deterministic 64-bit FNV-1a, used for the printed checksums.</summary>
    public static class Fnv
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
    }
}
