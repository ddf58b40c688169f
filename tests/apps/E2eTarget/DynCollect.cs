// DynCollect.cs -- E2eTarget's "dyncollect N BATCH SPIN_US [hold]" mode: DynamicMethods
// that are on the stack while stacks are sampled, and are then collected, thousands of
// them (tests/e2e/dynamic_methods.test.mjs).
//
// Each method JitscopeDynPoolK / JitscopeDynFreshK (int -> int) calls DynCollect.Work,
// which spins for its argument in microseconds, so a stack taken meanwhile has the
// dynamic method's frame right under Work's (if the runtime reports such frames:
// CoreCLR's profiler stack walk does not). Two phases:
//   pool   N methods are created and JIT-compiled (called once without spinning)
//          first; with "hold" the app then prints "READY" and waits for the stdin
//          line "go" (a profiler attached meanwhile did not see them compiled).
//          Then BATCH at a time are called once more (spinning), dropped and
//          collected: two blocking GCs, each followed by the finalizers (the runtime
//          frees a DynamicMethod's native part from a finalizer of the second round).
//   fresh  N more, BATCH at a time created, compiled, called (spinning), dropped and
//          collected the same way: they reuse the native parts (and FunctionIDs) of
//          the collected ones. Without "hold" one round; with "hold" rounds until
//          the stdin line "stop" (read between batches).
// After each batch's collection the app checks, through weak references, that the
// batch's DynamicMethod objects died.
// Output: "dyncollect pool N <sum>", one "dyncollect fresh N <sum>" per round (the same
// line each time), "dyncollect alive 0" (DynamicMethods a weak reference still saw
// alive after their collection), "dyncollect done"; with "hold" then "bye" on
// "exit" or EOF.
using System;
using System.Diagnostics;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    public static class DynCollect
    {
        static volatile bool stopAsked;
        static readonly ManualResetEventSlim exitAsked = new ManualResetEventSlim(false);

        public static int Run(int n, int batch, int spinUs, bool hold)
        {
            if (batch < 1) batch = 1;
            var pool = MakePool(n);
            if (hold)
            {
                Program.Out("READY");
                string? line;
                while ((line = Console.In.ReadLine()) != null && line.Trim() != "go")
                    ;
                new Thread(ReadCommands) { IsBackground = true, Name = "dyncollect-stdin" }.Start();
            }
            long alive = 0;
            Program.Out("dyncollect pool " + n + " " + CollectPool(pool, batch, spinUs, ref alive));
            do
                Program.Out("dyncollect fresh " + n + " " + CollectFresh(n, batch, spinUs, ref alive));
            while (hold && !stopAsked);
            Program.Out("dyncollect alive " + alive);
            Program.Out("dyncollect done");
            if (!hold)
                return 0;
            exitAsked.Wait();
            Program.Out("bye");
            return 0;
        }

        /// <summary>"stop" ends the fresh rounds; "exit" or EOF lets the app end.</summary>
        static void ReadCommands()
        {
            string? line;
            while ((line = Console.In.ReadLine()) != null)
            {
                line = line.Trim();
                if (line == "stop") stopAsked = true;
                if (line == "exit") break;
            }
            stopAsked = true;
            exitAsked.Set();
        }

        /// <summary>N methods, each compiled by one call that does not spin.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static (Func<int, int>?[] calls, WeakReference[] weak) MakePool(int n)
        {
            var calls = new Func<int, int>?[n];
            var weak = new WeakReference[n];
            for (int i = 0; i < n; i++)
            {
                calls[i] = Make("JitscopeDynPool" + i, i, out weak[i]);
                calls[i]!(0);
            }
            return (calls, weak);
        }

        /// <summary>The pool, BATCH at a time: each called (spinning) and dropped, then collected.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static long CollectPool((Func<int, int>?[] calls, WeakReference[] weak) pool, int batch, int spinUs, ref long alive)
        {
            long sum = 0;
            for (int start = 0; start < pool.calls.Length; start += batch)
            {
                int end = Math.Min(pool.calls.Length, start + batch);
                for (int i = start; i < end; i++)
                    sum += CallPool(pool.calls, i, spinUs);
                alive += CollectAndCount(pool.weak, start, end);
            }
            return sum;
        }

        /// <summary>Calls pool method i once more and drops it: no reference to it outlives
        /// this frame (not even in a register or stack slot of the caller).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CallPool(Func<int, int>?[] calls, int i, int spinUs)
        {
            var f = calls[i]!;
            calls[i] = null;
            return f(spinUs);
        }

        /// <summary>One round of N new methods, BATCH at a time: created, compiled, called
        /// (spinning), dropped, then collected.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static long CollectFresh(int n, int batch, int spinUs, ref long alive)
        {
            var weak = new WeakReference[batch];
            long sum = 0;
            for (int start = 0; start < n; start += batch)
            {
                int end = Math.Min(n, start + batch);
                for (int i = start; i < end; i++)
                    sum += CallFresh(i, spinUs, out weak[i - start]);
                alive += CollectAndCount(weak, 0, end - start);
            }
            return sum;
        }

        /// <summary>A new method, compiled and called once; nothing of it outlives the call.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CallFresh(int k, int spinUs, out WeakReference weak)
        {
            return Make("JitscopeDynFresh" + k, k, out weak)(spinUs);
        }

        /// <summary>DynamicMethod `name`: x => Work(x) + k, as a delegate.</summary>
        static Func<int, int> Make(string name, int k, out WeakReference weak)
        {
            var dm = new DynamicMethod(name, typeof(int), new[] { typeof(int) }, typeof(DynCollect).Module);
            var il = dm.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Call, typeof(DynCollect).GetMethod(nameof(Work))!);
            il.Emit(OpCodes.Ldc_I4, k);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
            weak = new WeakReference(dm);
            return (Func<int, int>)dm.CreateDelegate(typeof(Func<int, int>));
        }

        /// <summary>Spins for `us` microseconds; returns us * 3.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Work(int us)
        {
            long until = Stopwatch.GetTimestamp() + us * Stopwatch.Frequency / 1000000;
            while (Stopwatch.GetTimestamp() < until)
                ;
            return us * 3;
        }

        /// <summary>Two rounds of a blocking GC and the finalizers (the second frees what
        /// the first found dead); then how many of weak[from..to) are still alive.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CollectAndCount(WeakReference[] weak, int from, int to)
        {
            for (int round = 0; round < 2; round++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            int alive = 0;
            for (int i = from; i < to; i++)
                if (weak[i].IsAlive)
                    alive++;
            return alive;
        }
    }
}
