// OldTarget — a .NET Core 3.1 app for jitscope's refusal tests (tests/e2e/runtimes.test.mjs).
// jitscope needs .NET 5 or later; this app checks that an older runtime is refused
// clearly and runs on exactly as without jitscope.
//
// Prints "READY pid=<pid>", then reads stdin lines:
//   "work N" -> prints "worked N <sum of 0..N-1>" (JIT-compiles Sum on first use)
//   "exit" or EOF -> prints "bye", exit code 0
// Apart from the READY line (it has the pid) the output is deterministic.

using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace OldTarget
{
    public static class Program
    {
        public static int Main()
        {
            Out("READY pid=" + Process.GetCurrentProcess().Id);
            string? line;
            while ((line = Console.ReadLine()) != null && line != "exit")
            {
                if (line.StartsWith("work ", StringComparison.Ordinal) && int.TryParse(line.Substring(5), out int n))
                    Out("worked " + n + " " + Sum(n));
                else
                    Out("unknown command");
            }
            Out("bye");
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Sum(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++)
                s += i;
            return s;
        }

        static void Out(string text)
        {
            Console.Out.WriteLine(text);
            Console.Out.Flush();
        }
    }
}
