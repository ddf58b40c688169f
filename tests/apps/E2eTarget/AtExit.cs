// AtExit.cs -- "atexit": methods first compiled in a ProcessExit handler,
// after the runtime has begun to shut down (and stopped its EventPipe
// sessions, jitscope's tier source among them: their tier is unknown, and
// the session says why).
using System;
using System.Runtime.CompilerServices;

namespace JitscopeE2e
{
    public static class AtExit
    {
        public static int Run()
        {
            AppDomain.CurrentDomain.ProcessExit += (_, _) => Console.WriteLine("at exit " + First(3) + Second(4));
            Console.WriteLine("main done " + Before(2));
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Before(int x) => x * 7;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int First(int x) => x * 11;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Second(int x) => x * 13;
    }
}
