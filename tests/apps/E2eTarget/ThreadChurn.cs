// ThreadChurn.cs — E2eTarget's "threads" mode: hundreds of named, short-lived
// threads with collections in between, so that the runtime hands the ThreadIDs
// of ended threads to new ones (jitscope's thread identity tests).
//
//   threads N BATCH   print "READY pid=<pid>", then read stdin lines:
//                       "go"   -> start N threads (N <= 900) in batches of BATCH: a batch is
//                                 started together and joined, then GC.Collect(),
//                                 GC.WaitForPendingFinalizers(), GC.Collect(): the runtime frees
//                                 an ended thread's object (whose address is its ThreadID) only
//                                 once the managed Thread was finalized, so later threads get
//                                 the IDs of earlier ones.
//                                 Thread i is named "tid-worker-<iii>" (before Start, so the OS
//                                 thread has the name too), reads its kernel thread id from
//                                 /proc/thread-self, and JIT-compiles Storm.Combo2 instance i
//                                 (storm method 27000 + i), which no other thread compiles.
//                                 Then one line per thread, "thread <i> <name> <kernel tid>",
//                                 and "churned <N>" (after JIT-compiling ThreadChurn.Done on the main
//                                 thread: a tool that has its JIT has every thread's end).
//                       "exit" or EOF -> exit code 0
// Apart from the READY line and the kernel thread ids, the output is deterministic.

using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    public static class ThreadChurn
    {
        public const int MaxThreads = 900; // Storm.Combo2 instances

        public static string NameOf(int i) => "tid-worker-" + i.ToString("D3");

        public static int Run(int n, int batch)
        {
            if (n < 1 || n > MaxThreads || batch < 1)
            {
                Console.Error.WriteLine($"E2eTarget: threads wants 1..{MaxThreads} threads and a batch of 1 or more");
                return 2;
            }
            Program.Out("READY pid=" + Environment.ProcessId);
            string? line;
            while ((line = Console.In.ReadLine()) != null)
            {
                line = line.Trim();
                if (line.Length == 0) continue;
                if (line == "exit") break;
                if (line == "go") Churn(n, batch);
                else Program.Out("error unknown-command " + line);
            }
            return 0;
        }

        static void Churn(int n, int batch)
        {
            var tids = new int[n];
            for (int first = 0; first < n; first += batch)
            {
                int end = Math.Min(first + batch, n);
                var threads = new Thread[end - first];
                for (int i = first; i < end; i++)
                {
                    int index = i;
                    threads[i - first] = new Thread(() => tids[index] = Work(index)) { Name = NameOf(i) };
                }
                foreach (Thread t in threads) t.Start();
                foreach (Thread t in threads) t.Join();
                Array.Clear(threads);
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
            }
            for (int i = 0; i < n; i++)
                Program.Out("thread " + i + " " + NameOf(i) + " " + tids[i]);
            Program.Out("churned " + Done(n));
        }

        /// <summary>
        /// Compiled once, on the main thread, after every thread was joined: its JIT record
        /// follows every thread's end in the agent's stream (a thread's ThreadDestroyed runs
        /// before Join returns), so a tool that sees it has seen them all.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Done(int n) => n;

        /// <summary>On thread <paramref name="index"/>: its one storm method, then its kernel thread id.</summary>
        static int Work(int index)
        {
            Storm.Run(27000 + index, 1, out ulong _);
            // /proc/thread-self -> "<pid>/task/<tid>"
            string target = new DirectoryInfo("/proc/thread-self").LinkTarget ?? "";
            return int.Parse(target.Substring(target.LastIndexOf('/') + 1));
        }
    }
}
