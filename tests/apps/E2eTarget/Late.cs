// Late.cs — E2eTarget's "late" methods for attach tests (serve mode).
//
// JitscopeE2e.Late.LateMethod01() .. LateMethod40() are never called by the
// scenario; serve mode calls LateMethodNN only on the stdin command "call N",
// so a profiler attached after "READY" sees each one JIT-compiled for the first
// time when (and only when) it is asked for. Each is NoInlining, has its own
// body (no shared helper that would be JIT-compiled along with it) and returns
// a deterministic value.

using System.Runtime.CompilerServices;

namespace JitscopeE2e
{
    public static class Late
    {
        public const int Count = 40;

        /// <summary>Calls LateMethodNN; null if n is not in 1..Count. Call(0) only JITs this dispatcher.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long? Call(int n)
        {
            switch (n)
            {
                case 1: return LateMethod01();
                case 2: return LateMethod02();
                case 3: return LateMethod03();
                case 4: return LateMethod04();
                case 5: return LateMethod05();
                case 6: return LateMethod06();
                case 7: return LateMethod07();
                case 8: return LateMethod08();
                case 9: return LateMethod09();
                case 10: return LateMethod10();
                case 11: return LateMethod11();
                case 12: return LateMethod12();
                case 13: return LateMethod13();
                case 14: return LateMethod14();
                case 15: return LateMethod15();
                case 16: return LateMethod16();
                case 17: return LateMethod17();
                case 18: return LateMethod18();
                case 19: return LateMethod19();
                case 20: return LateMethod20();
                case 21: return LateMethod21();
                case 22: return LateMethod22();
                case 23: return LateMethod23();
                case 24: return LateMethod24();
                case 25: return LateMethod25();
                case 26: return LateMethod26();
                case 27: return LateMethod27();
                case 28: return LateMethod28();
                case 29: return LateMethod29();
                case 30: return LateMethod30();
                case 31: return LateMethod31();
                case 32: return LateMethod32();
                case 33: return LateMethod33();
                case 34: return LateMethod34();
                case 35: return LateMethod35();
                case 36: return LateMethod36();
                case 37: return LateMethod37();
                case 38: return LateMethod38();
                case 39: return LateMethod39();
                case 40: return LateMethod40();
                default: return null;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod01()
        {
            long h = 1;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 1);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod02()
        {
            long h = 2;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 2);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod03()
        {
            long h = 3;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 3);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod04()
        {
            long h = 4;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 4);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod05()
        {
            long h = 5;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 5);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod06()
        {
            long h = 6;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 6);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod07()
        {
            long h = 7;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 7);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod08()
        {
            long h = 8;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 8);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod09()
        {
            long h = 9;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 9);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod10()
        {
            long h = 10;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 10);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod11()
        {
            long h = 11;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 11);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod12()
        {
            long h = 12;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 12);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod13()
        {
            long h = 13;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 13);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod14()
        {
            long h = 14;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 14);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod15()
        {
            long h = 15;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 15);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod16()
        {
            long h = 16;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 16);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod17()
        {
            long h = 17;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 17);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod18()
        {
            long h = 18;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 18);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod19()
        {
            long h = 19;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 19);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod20()
        {
            long h = 20;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 20);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod21()
        {
            long h = 21;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 21);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod22()
        {
            long h = 22;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 22);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod23()
        {
            long h = 23;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 23);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod24()
        {
            long h = 24;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 24);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod25()
        {
            long h = 25;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 25);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod26()
        {
            long h = 26;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 26);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod27()
        {
            long h = 27;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 27);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod28()
        {
            long h = 28;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 28);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod29()
        {
            long h = 29;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 29);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod30()
        {
            long h = 30;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 30);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod31()
        {
            long h = 31;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 31);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod32()
        {
            long h = 32;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 32);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod33()
        {
            long h = 33;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 33);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod34()
        {
            long h = 34;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 34);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod35()
        {
            long h = 35;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 35);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod36()
        {
            long h = 36;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 36);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod37()
        {
            long h = 37;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 37);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod38()
        {
            long h = 38;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 38);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod39()
        {
            long h = 39;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 39);
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LateMethod40()
        {
            long h = 40;
            for (int i = 0; i < 64; i++) h = h * 31 + (i ^ 40);
            return h;
        }
    }
}
