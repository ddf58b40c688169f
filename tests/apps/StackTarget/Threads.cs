// Threads.cs — StackTarget's threads with known stacks.
//
//   "deep"     Deep.Run -> Deep.Recurse(25) -> ... -> Deep.Recurse(1) -> Deep.Park
//              -> ManualResetEvent.WaitOne (System.Threading.*, ReadyToRun in CoreLib)
//              i.e. exactly Deep.Depth = 25 consecutive Recurse frames, each its own
//              frame (NoInlining, and the caller adds to the result after the call,
//              so there is no tail call and no recursion-to-loop).
//   "spinner"  Spin.Run -> Spin.Outer -> Spin.Inner, a hot loop of integer work
//              (Inner is called over and over; almost all CPU time is in Inner).
//   "sleeper"  Sleeper.Run -> Thread.Sleep(Infinite), woken by Thread.Interrupt.
//
// Every thread is named (Thread.Name, set before Start so Linux's thread name is
// set too: an attach-time catch-up reads it from /proc) and is a background thread.

using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace StackTarget
{
    public static class Deep
    {
        public const int Depth = 25;
        public const string ThreadName = "deep";

        static readonly ManualResetEvent Gate = new ManualResetEvent(false);
        static volatile bool _parked;
        public static long Result = -1;

        public static bool Parked => _parked;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run()
        {
            Result = Recurse(Depth);
        }

        /// <summary>Recurse(n) calls Recurse(n-1) ... Recurse(1) calls Park: n frames. Returns n(n+1)/2.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Recurse(int n)
        {
            long below = n > 1 ? Recurse(n - 1) : Park();
            return below + n; // work after the call: never a tail call
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Park()
        {
            _parked = true;
            Gate.WaitOne();
            return 0;
        }

        public static void Release() => Gate.Set();
    }

    public static class Spin
    {
        public const string ThreadName = "spinner";
        static volatile bool _stop;
        static long _rounds;

        public static long Rounds => Interlocked.Read(ref _rounds);
        public static void Stop() => _stop = true;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run()
        {
            ulong acc = Outer();
            GC.KeepAlive(acc);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Outer()
        {
            ulong acc = 14695981039346656037UL;
            while (!_stop)
            {
                acc = Inner(acc);
                Interlocked.Increment(ref _rounds);
            }
            return acc;
        }

        /// <summary>About 200,000 multiply-xor steps (a few hundred microseconds): the hot spot.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Inner(ulong acc)
        {
            for (uint i = 0; i < 200_000; i++)
                acc = (acc ^ i) * 0x100000001b3UL;
            return acc;
        }
    }

    public static class Sleeper
    {
        public const string ThreadName = "sleeper";
        public static volatile bool Woke;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Run()
        {
            try
            {
                Thread.Sleep(Timeout.Infinite);
            }
            catch (ThreadInterruptedException)
            {
                Woke = true;
            }
        }
    }

    /// <summary>The three known threads: started together, checked and stopped together.</summary>
    public sealed class KnownThreads
    {
        readonly Thread _deep, _spinner, _sleeper;

        public KnownThreads()
        {
            _deep = new Thread(Deep.Run) { Name = Deep.ThreadName, IsBackground = true };
            _spinner = new Thread(Spin.Run) { Name = Spin.ThreadName, IsBackground = true };
            _sleeper = new Thread(Sleeper.Run) { Name = Sleeper.ThreadName, IsBackground = true };
        }

        /// <summary>Starts the threads and returns once each one is where its stack is known.</summary>
        public void StartAndSettle()
        {
            _deep.Start();
            _spinner.Start();
            _sleeper.Start();
            var deadline = DateTime.UtcNow.AddSeconds(60);
            while (!(Deep.Parked && (_deep.ThreadState & ThreadState.WaitSleepJoin) != 0
                     && (_sleeper.ThreadState & ThreadState.WaitSleepJoin) != 0
                     && Spin.Rounds >= 2))
            {
                if (DateTime.UtcNow > deadline)
                    throw new InvalidOperationException("known threads did not settle in 60 s");
                Thread.Sleep(5);
            }
        }

        /// <summary>Lets every thread end and prints what they computed (deterministic lines).</summary>
        public void StopAndReport()
        {
            Deep.Release();
            _deep.Join();
            Program.Out("deep " + Deep.Result); // 325 = 1 + 2 + ... + 25: every frame returned properly
            Spin.Stop();
            _spinner.Join();
            Program.Out("spinner stopped");
            _sleeper.Interrupt();
            _sleeper.Join();
            Program.Out("sleeper " + (Sleeper.Woke ? "woke" : "not woken"));
        }
    }
}
