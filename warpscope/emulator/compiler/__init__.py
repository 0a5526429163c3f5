"""Kernel source to warp-wide closures: the SIMT functional model.

A kernel's Python AST is compiled once, at its first launch, into a tree of closures.
Each expression closure computes one value for every lane of a chunk at once (a numpy
array, or one numpy scalar when every lane has the same value); each statement closure
takes the mask of active lanes and returns the lanes that go on to the next statement.
A branch whose condition differs across active lanes runs both sides under their halves
of the mask and reconverges at the end of the ``if``; a loop runs while any lane is still
in it. Names that are not assigned in the kernel are resolved at compile time, as numba
freezes globals and closure variables.

Written here rather than taken from a library: numba's own CUDA simulator runs one
Python thread per CUDA thread (no warps, no masks, ~3K threads/s), and no maintained
package executes Python kernels warp-wide.

The compiler is split by concern: ``base`` (dispatch, instruction sites, errors),
``expressions``, ``statements``, ``loops``, ``core`` (``Compiler``: a whole function);
``ops`` says which pipe an operation runs on. Calls of ``cuda.*``, ``math.*`` and builtins
are built by the intrinsics registered in ``warpscope.emulator.intrinsics``.
"""
