// Calls.cs -- the "calls" mode of E2eTarget: methods whose calls go through a
// register, a stub or a dispatch cell (tests/e2e/calls.test.mjs names every
// call instruction of every compilation of them and compares with the JIT's
// own listing). Same stdin protocol as "code" (Code.cs): "READY" once the
// worker has run them; "stop" -> "stopped" once nothing compiles for 1 s;
// "exit" / EOF -> "exit 0".
//   CallWork.CallDelegate   Func<int, int>.Invoke (a delegate's call)
//   CallWork.CallVirtual    an abstract method and object.GetHashCode (virtual)
//   CallWork.CallInterface  ICallShape.Area (interface dispatch)
//   CallWork.CallAsync      an async method: its state machine's MoveNext calls
//                           the builder, the awaiter and Task.Yield
using System;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace JitscopeE2e
{
    public interface ICallShape
    {
        int Area(int x);
    }

    public abstract class CallBase
    {
        public abstract int Virt(int x);
    }

    public sealed class CallSquare : CallBase, ICallShape
    {
        public override int Virt(int x) => x * x;
        public int Area(int x) => x * 2;
    }

    public sealed class CallCircle : CallBase, ICallShape
    {
        public override int Virt(int x) => x + 3;
        public int Area(int x) => x * 3;
    }

    public static class CallWork
    {
        static long sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CallDelegate(Func<int, int> f, int x) => f(x) + f(x + 1);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CallVirtual(CallBase b, int x) => b.Virt(x) + (b.GetHashCode() & 1);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CallInterface(ICallShape s, int x) => s.Area(x) + s.Area(x + 1);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> CallAsync(int x)
        {
            await Task.Yield();
            return x + 1;
        }

        static readonly Func<int, int> twice = (x) => x * 2;
        static readonly CallBase[] bases = { new CallSquare(), new CallCircle() };
        static readonly ICallShape[] shapes = { new CallSquare(), new CallCircle() };

        static void Once(int i)
        {
            sink += CallDelegate(twice, i);
            sink += CallVirtual(bases[i & 1], i);
            sink += CallInterface(shapes[i & 1], i);
            sink += CallAsync(i).GetAwaiter().GetResult();
        }

        public static int Run() => CodeWork.Serve(Once);
    }
}
