"""Expressions: names, constants, operators, attributes, subscripts and calls, each compiled
to a ``Const`` when its value is known at compile time or a warp-wide closure."""

from __future__ import annotations

import ast
import builtins
import enum
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from warpscope.emulator import affine, arrays, device_api, fma, intrinsics, signatures
from warpscope.emulator.compiler import reductions
from warpscope.emulator.compiler.base import CompilerBase
from warpscope.emulator.compiler.codegen import Gen, gen_of
from warpscope.emulator.compiler.ops import LOAD_OP, STORE_OP, arith_op, memory_op
from warpscope.emulator.device_api import Dim3Index, Namespace
from warpscope.emulator.errors import KernelMistake, UsedBeforeAssigned
from warpscope.emulator.functions import DeviceFunction, InnerFunction, JitFunction, cast_scalar
from warpscope.emulator.instructions import Op
from warpscope.emulator.intrinsics.elementwise import elementwise
from warpscope.emulator.ir import Const, Expr, Node, deps, exec_block, run_expr, scalar, truth, with_deps
from warpscope.emulator.numeric import BINARY, numba_binary, numba_unary
from warpscope.emulator.runtime import Frame, Run
from warpscope.emulator.simt import Mask

#: the operators Nsight Compute's roofline counts as floating-point work (FADD, FMUL, FFMA)
FLOP_OPS = (ast.Add, ast.Sub, ast.Mult)
COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: np.logical_not,
    ast.Invert: operator.invert,
}


class Expressions(CompilerBase):
    """``expr_*`` for every expression a kernel may contain."""

    def expr_Constant(self, node: ast.Constant) -> Node:
        if isinstance(node.value, (str, bytes)):
            raise self.unsupported(node, "strings are not supported in kernels")
        if node.value is None or node.value is Ellipsis:
            return Const(node.value)
        return Const(scalar(node.value))

    def expr_Name(self, node: ast.Name) -> Node:
        name = node.id
        if name in self.constants:
            return Const(self.constants[name])
        if name in self.locals:
            read = self.variable_reads.get(name)
            if read is None:  # one closure for every read of the name: a smaller tree to load
                read = self.variable_reads[name] = _read_variable(name, self.var(name))
            return read
        if name in self.env:
            return _lane_id_or(Const(self.global_value(node, name, self.env[name])))
        if hasattr(builtins, name):
            return Const(getattr(builtins, name))
        raise self.unsupported(node, f"name '{name}' is not defined")

    def global_value(self, node: ast.AST, name: str, value: Any) -> Any:
        if isinstance(value, enum.Enum) and not isinstance(value, (int, float)):
            return value  # a member of a plain Enum: a constant numba compares and reads .value of
        if isinstance(value, (bool, int, float, complex, np.generic)):
            return scalar(value)
        if isinstance(value, enum.EnumMeta):
            return value  # Enum / IntEnum classes: their members are constants
        if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, np.generic)) for v in value):
            return scalar(value)
        if isinstance(value, np.ndarray) and callable(getattr(value, "copy_to_host", None)):
            # a device array (cuda.to_device, device_array): captured by reference, as numba-cuda
            # captures device arrays, so what the host copies into it later is what kernels read
            return arrays.captured(value, name)
        if isinstance(value, np.ndarray):
            # numba freezes a global array into the kernel when it compiles it
            return arrays.ConstArray(np.array(value, copy=True), name)
        dtype = signatures.scalar_dtype(value)  # numba's float32, types.int32, f8...
        if dtype is not None:
            return dtype
        if intrinsics.is_known(value) or (_hashable(value) and value in reductions.FUNCTIONS):
            return value
        if getattr(value, "__module__", "").endswith("cuda.libdevice") and callable(value):
            # numba.cuda.libdevice.sqrt: the emulated cuda.libdevice function of that name
            ours = vars(device_api.libdevice).get(getattr(value, "__name__", ""))
            if ours is None:
                raise self.unsupported(
                    node, f"{name} is not emulated by warpscope (docs/emulator.md lists what is)"
                )
            return ours
        if _is_njit(value):  # numba compiles an @njit function for the device where a kernel calls it
            return DeviceFunction(value.py_func)
        raise self.unsupported(node, f"global '{name}' ({type(value).__name__}) cannot be used in a kernel")

    def expr_Attribute(self, node: ast.Attribute) -> Node:
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.value
            if isinstance(obj, Dim3Index):
                return intrinsics.dim3_component(obj.name, attr, self, node)
            if isinstance(obj, arrays.ArrayRef):
                return Const(arrays.attribute(obj, attr))
            if not hasattr(obj, attr):
                if isinstance(obj, Namespace):  # cuda.libdevice, cuda.fp16, ...: one clear line
                    raise self.unsupported(node, str(_missing(obj, attr)))
                raise self.unsupported(node, f"'{_describe(obj)}' has no attribute '{attr}'")
            return _lane_id_or(Const(self.global_value(node, f"{_describe(obj)}.{attr}", getattr(obj, attr))))
        if attr == "dtype" and isinstance(node.value, ast.Name) and node.value.id in self.param_types:
            t = self.param_types[node.value.id]
            if isinstance(t, tuple):  # an array argument: its dtype is part of the compilation
                return Const(t[0])
        load = self.inst(node, None, deps(base))
        line = load.line

        def get_attr(run: Run, frame: Frame, mask: Mask) -> Any:
            value = base(run, frame, mask)
            if isinstance(value, arrays.RecordRef):  # a record's field is a load
                return load_element(run, mask, value, (attr,), line, load)
            return arrays.attribute(value, attr)

        return with_deps(get_attr, {load.dst} | deps(base))

    def expr_BinOp(self, node: ast.BinOp) -> Node:
        plain = BINARY.get(type(node.op))
        if plain is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__} is not supported")
        op = numba_binary(type(node.op), plain)
        if isinstance(node.op, (ast.Add, ast.Sub)) and (is_product(node.left) or is_product(node.right)):
            return self.multiply_add(node, op)
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(left, Const) and isinstance(right, Const):
            return Const(_fold(op, left.value, right.value, isinstance(node.op, ast.Pow)))
        lf, rf = run_expr(left), run_expr(right)
        inst = self.inst(node, None, deps(left) | deps(right))
        divide = isinstance(node.op, ast.Div)
        flop = isinstance(node.op, FLOP_OPS)
        add = 1 if isinstance(node.op, ast.Add) else -1 if isinstance(node.op, ast.Sub) else 0

        def binop(run: Run, frame: Frame, mask: Mask) -> Any:
            return binary_value(
                run, mask, inst, op, divide, flop, add, lf(run, frame, mask), rf(run, frame, mask)
            )

        def gen(g: Gen) -> str:
            a, b = g.expr(left), g.expr(right)
            return g.call(binary_value, inst, op, divide, flop, add, a=a, b=b)

        return with_deps(gen_of(binop, gen), {inst.dst})

    def product(self, node: ast.BinOp) -> Node:
        """``a * b`` as a closure returning (a, b, the product's dtype): the add it feeds
        decides whether to fuse (``fma``) or round the product (``Product.rounded``); it is
        counted and issued as the multiply it also is."""
        a, b = self.expr(node.left), self.expr(node.right)
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(Product(a.value, b.value))
        af, bf = run_expr(a), run_expr(b)
        inst = self.inst(node, None, deps(a) | deps(b))

        def product(run: Run, frame: Frame, mask: Mask) -> Any:
            return product_value(run, mask, inst, af(run, frame, mask), bf(run, frame, mask))

        def gen(g: Gen) -> str:
            x, y = g.expr(a), g.expr(b)
            return g.call(product_value, inst, a=x, b=y)

        return with_deps(gen_of(product, gen), {inst.dst})

    def multiply_add(self, node: ast.BinOp, op: Callable[[Any, Any], Any]) -> Node:
        """``a * b ± c`` and ``c ± a * b``: one rounding where both are of one float type, as
        the GPU's FFMA/DFMA (see ``fma``); the left product is fused when both sides are."""
        product_left = is_product(node.left)
        left = self.product(node.left) if product_left else self.expr(node.left)  # type: ignore[arg-type]
        right = self.expr(node.right) if product_left else self.product(node.right)  # type: ignore[arg-type]
        if isinstance(left, Const) and isinstance(right, Const):  # folded, as any constant expression
            lv, rv = (
                (left.value.rounded(), right.value) if product_left else (left.value, right.value.rounded())
            )
            return Const(_fold(op, lv, rv))
        lf, rf = run_expr(left), run_expr(right)
        inst = self.inst(node, None, deps(left) | deps(right))
        subtract = isinstance(node.op, ast.Sub)

        def multiply_add(run: Run, frame: Frame, mask: Mask) -> Any:
            lv, rv = lf(run, frame, mask), rf(run, frame, mask)
            return multiply_add_value(run, mask, inst, op, product_left, subtract, lv, rv)

        def gen(g: Gen) -> str:
            lv, rv = g.expr(left), g.expr(right)
            return g.call(multiply_add_value, inst, op, product_left, subtract, a=lv, b=rv)

        return with_deps(gen_of(multiply_add, gen), {inst.dst})

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Node:
        op = numba_unary(type(node.op), UNARY[type(node.op)])
        operand = self.expr(node.operand)
        if isinstance(operand, Const):
            return Const(op(operand.value))
        inst = self.inst(node, None, deps(operand))

        def unop(run: Run, frame: Frame, mask: Mask) -> Any:
            return unary_value(run, mask, inst, op, operand(run, frame, mask))

        def gen(g: Gen) -> str:
            return g.call(unary_value, inst, op, a=g.expr(operand))

        return with_deps(gen_of(unop, gen), {inst.dst})

    def expr_Compare(self, node: ast.Compare) -> Node:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return self.identity(node)
        ops = []
        for o in node.ops:
            fn = COMPARE.get(type(o))
            if fn is None:
                raise self.unsupported(node, f"comparison {type(o).__name__} is not supported")
            ops.append(fn)
        parts = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        if all(isinstance(p, Const) for p in parts):
            vals = [p.value for p in parts]
            return Const(np.bool_(all(op(a, b) for op, a, b in zip(ops, vals, vals[1:]))))
        fns = [run_expr(p) for p in parts]
        inst = self.inst(node, Op.ALU, frozenset().union(*(deps(p) for p in parts)), n=len(ops))

        def compare(run: Run, frame: Frame, mask: Mask) -> Any:
            return compare_value(run, mask, inst, ops, [f(run, frame, mask) for f in fns])

        def gen(g: Gen) -> str:
            vals = ", ".join(g.expr(p) for p in parts)
            return g.call(compare_value, inst, ops, a=f"[{vals}]")

        return with_deps(gen_of(compare, gen), {inst.dst})

    def identity(self, node: ast.Compare) -> Node:
        """``x is None`` / ``x is not None``: numba decides it from the types when it compiles
        (an omitted optional argument is None; a value a thread computes never is)."""
        left, right = self.expr(node.left), self.expr(node.comparators[0])
        if not (isinstance(left, Const) and left.value is None) and not (
            isinstance(right, Const) and right.value is None
        ):
            raise self.unsupported(node, "'is' compares with None only in kernels")
        same = isinstance(left, Const) and isinstance(right, Const) and left.value is right.value
        return Const(np.bool_(same if isinstance(node.ops[0], ast.Is) else not same))

    def expr_BoolOp(self, node: ast.BoolOp) -> Node:
        is_and = isinstance(node.op, ast.And)
        nodes = [self.expr(v) for v in node.values]
        fns = [run_expr(v) for v in nodes]
        inst = self.inst(node, Op.ALU, frozenset().union(*(deps(v) for v in nodes)))
        # an operand known when compiling is tested then too: no instruction
        tested = [not isinstance(v, Const) for v in nodes]

        def boolop(run: Run, frame: Frame, mask: Mask) -> Any:
            # Short-circuit per lane: later operands run only on lanes still undecided,
            # so `i < n and a[i] > 0` never reads a[i] out of bounds. Each warp that evaluated
            # an operand tests it (one instruction) whether or not any of its lanes goes on,
            # and whether the values are one per lane or one for all: what is counted depends
            # on neither the values' form nor which blocks share a chunk.
            result = truth(fns[0](run, frame, mask))
            evaluated: Mask = mask  # the lanes that evaluated the operand being tested
            for k, f in enumerate(fns[1:]):
                pending = result if is_and else np.logical_not(result)
                if np.ndim(pending):
                    on = evaluated.both(pending)
                    if on:
                        result = np.where(on.arr, truth(f(run, frame, on)), result)
                elif pending:  # one value, every lane undecided (the mask is ``evaluated``)
                    on = evaluated
                    result = truth(f(run, frame, on))
                else:
                    on = None
                if tested[k]:
                    run.issue(inst, evaluated)
                if not on:
                    break
                evaluated = on
            return result

        return with_deps(boolop, {inst.dst, *inst.srcs})

    def expr_IfExp(self, node: ast.IfExp) -> Node:
        nodes = [self.expr(n) for n in (node.test, node.body, node.orelse)]
        test, body, orelse = (run_expr(n) for n in nodes)
        select = self.inst(node, Op.ALU, frozenset().union(*(deps(n) for n in nodes)))

        selects = not isinstance(nodes[0], Const)  # a test known when compiling selects then

        def ifexp(run: Run, frame: Frame, mask: Mask) -> Any:
            c = test(run, frame, mask)
            if selects:  # one select per warp, one value for every lane or not
                run.issue(select, mask)
            if not np.ndim(c):
                return body(run, frame, mask) if c else orelse(run, frame, mask)
            c = c.astype(bool, copy=False)
            m_body, m_else = mask.both(c), mask.both(~c)
            if not m_else:
                return body(run, frame, mask)
            if not m_body:
                return orelse(run, frame, mask)
            return np.where(c, body(run, frame, m_body), orelse(run, frame, m_else))

        return with_deps(ifexp, {select.dst} | deps(nodes[1]) | deps(nodes[2]))

    def expr_Tuple(self, node: ast.Tuple) -> Node:
        parts = [self.expr(e) for e in node.elts]
        if all(isinstance(p, Const) for p in parts):
            return Const(tuple(p.value for p in parts))
        fns = [run_expr(p) for p in parts]
        return with_deps(
            gen_of(lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns), _tuple_gen(parts)),
            frozenset().union(*(deps(p) for p in parts)),
        )

    def expr_Subscript(self, node: ast.Subscript) -> Node:
        base = self.expr(node.value)
        index_node = node.slice
        parts = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
        if any(isinstance(p, ast.Slice) for p in parts):
            return self.slice_view(node, base, parts)
        index = self.index(index_node)
        basef = run_expr(base)
        load = self.inst(node, None, deps(base) | deps(index))
        load.register_index = self.names_set_once(index_node)
        line = load.line

        def subscript(run: Run, frame: Frame, mask: Mask) -> Any:
            return load_element(run, mask, basef(run, frame, mask), index(run, frame, mask), line, load)

        def gen(g: Gen) -> str:
            b = g.expr(base)
            i = g.expr(index)
            t = g.temp()
            g.line(f"{t} = {g.ref(load_element)}(run, mask, {b}, {i}, {line}, {g.ref(load)})")
            return t

        return with_deps(gen_of(subscript, gen), {load.dst})

    def slice_view(self, node: ast.Subscript, base: Node, parts: list[ast.expr]) -> Node:
        """``a[lo:hi:step]``, ``m[i, :]``: a view of the array (numba's array slicing); where
        an index or bound differs between threads, each thread's own view (``arrays.lane_view``)."""
        none = Const(None)
        compiled = [
            tuple(self.expr(b) if b is not None else none for b in (p.lower, p.upper, p.step))
            if isinstance(p, ast.Slice)
            else self.expr(p)
            for p in parts
        ]
        fns = [tuple(run_expr(b) for b in c) if isinstance(c, tuple) else run_expr(c) for c in compiled]
        basef = run_expr(base)

        def view(run: Run, frame: Frame, mask: Mask) -> Any:
            key = tuple(
                slice(*(_uniform(g(run, frame, mask), mask) for g in f))
                if isinstance(f, tuple)
                else _uniform(f(run, frame, mask), mask)
                for f in fns
            )
            return arrays.view(basef(run, frame, mask), key)

        return with_deps(view, deps(base))

    def index(self, node: ast.expr) -> Expr:
        parts = node.elts if isinstance(node, ast.Tuple) else [node]
        if len(parts) == 1 and isinstance(parts[0], ast.Constant) and isinstance(parts[0].value, str):
            field = (parts[0].value,)  # a record's field by name: rec["x"]
            return gen_of(lambda run, frame, mask: field, lambda g: g.ref(field))
        nodes = [self.expr(p) for p in parts]
        fns = [run_expr(p) for p in nodes]
        if len(fns) == 1:  # one value: a number, or a tuple of them (``a[gid]``, gid = cuda.grid(2))
            (one,) = fns
            single = self.single_indexes.get(one)  # ``a[i]`` and ``b[i]``: one closure
            if single is None:
                single = self.single_indexes[one] = _single_index(one, nodes[0])
            return single
        return with_deps(
            gen_of(lambda run, frame, mask: tuple(f(run, frame, mask) for f in fns), _tuple_gen(nodes)),
            frozenset().union(*(deps(p) for p in nodes)),
        )

    def expr_Call(self, node: ast.Call) -> Node:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "bit_count":
            base = self.expr(node.func.value)  # x.bit_count(), as numba types int.bit_count
            if not isinstance(base, Const) or isinstance(base.value, (int, np.integer)):
                if node.args or node.keywords:
                    raise self.unsupported(node, "bit_count() takes no arguments")
                return elementwise(self, node, [base], self.line(node), bit_count)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("conjugate", "conj"):
            base = self.expr(node.func.value)  # z.conjugate(), numba's method of numbers
            if not isinstance(base, Const) or isinstance(base.value, (int, float, complex, np.number)):
                if node.args or node.keywords:
                    raise self.unsupported(node, f"{node.func.attr}() takes no arguments")
                return elementwise(self, node, [base], self.line(node), np.conjugate)
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in reductions.METHODS
            and not node.args
            and not node.keywords
        ):
            base = self.expr(node.func.value)  # a.sum(), row.max(): an array's own reduction
            if not isinstance(base, Const) or isinstance(base.value, (arrays.ArrayRef, arrays.RowView)):
                return self.array_reduction(node, base, node.func.attr)
        func = self.expr(node.func)
        if not isinstance(func, Const):
            raise self.unsupported(node, "only functions known when the kernel is compiled can be called")
        fn = func.value
        if _hashable(fn) and fn in reductions.FUNCTIONS and len(node.args) == 1 and not node.keywords:
            return self.array_reduction(node, self.expr(node.args[0]), reductions.FUNCTIONS[fn])
        if isinstance(fn, JitFunction):  # a kernel called from a kernel is a device function
            return self.inline(node, fn)
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(node.args) == fn.nin + 1 and not node.keywords:
            return self.ufunc_out(node, fn)
        return intrinsics.call(self, node, fn)

    def array_reduction(self, node: ast.Call, base: Node, name: str) -> Node:
        """``a.sum()`` / ``np.max(a)``: each thread that calls it reads every element of its
        array (``compiler.reductions``)."""
        basef = run_expr(base)
        load = self.inst(node, None, deps(base))
        compute = self.inst(node, None, {load.dst})
        line = load.line

        def array_reduction(run: Run, frame: Frame, mask: Mask) -> Any:
            a = basef(run, frame, mask)
            if not isinstance(a, (arrays.ArrayRef, arrays.RowView)):
                raise KernelMistake(f"{name}() needs an array, not {type(a).__name__}")
            swept = arrays.load_all(a, mask, run.counters.site(line), run.race, line)
            if swept is not None:  # read at once, each element's load issued in turn
                array, values, addresses = swept
                if run.trace is None:
                    run.issue_times(load, mask, len(addresses))
                else:
                    op = memory_op(LOAD_OP, array, (), load)  # a global array's: one for all
                    for cost in run.global_costs(array, addresses, mask):
                        run.issue(load, mask, op, cost)
            else:  # each element's load into its column (assigning broadcasts one value to every lane)
                values = np.empty(mask.arr.shape + (int(np.prod(a.shape)),), a.dtype)
                for k, at in enumerate(np.ndindex(*a.shape)):
                    values[:, k] = load_element(run, mask, a, tuple(np.int64(i) for i in at), line, load)
            result = reductions.reduce(name, values, a.dtype)
            run.issue(compute, mask, arith_op(result, False))
            return result

        return with_deps(array_reduction, {compute.dst})

    def ufunc_out(self, node: ast.Call, fn: np.ufunc) -> Node:
        """``np.sin(x, r)``: the ufunc over whole arrays into ``out``, as numba compiles it in a
        kernel: every thread that runs it loops over all the elements (each read and written
        with a load and a store, counted as such; threads of one block doing it at once race
        on ``out``, as they would on a GPU)."""
        args = [self.expr(a) for a in node.args]
        fns = [run_expr(a) for a in args]
        load = self.inst(node, None, frozenset().union(*(deps(a) for a in args)))
        compute = self.inst(node, None, {load.dst})
        store = self.inst(node, None, {compute.dst})
        line = load.line
        name = fn.__name__

        def ufunc_out(run: Run, frame: Frame, mask: Mask) -> Any:
            *ins, out = (f(run, frame, mask) for f in fns)
            if not isinstance(out, (arrays.ArrayRef, arrays.RowView)):
                raise KernelMistake(f"the out argument of np.{name} must be an array")
            for a in ins:
                if isinstance(a, (arrays.ArrayRef, arrays.RowView)) and tuple(a.shape) != tuple(out.shape):
                    raise KernelMistake(f"np.{name}: operand of shape {a.shape} and out of shape {out.shape}")
            if run.race is None and _ufunc_at_once(run, mask, fn, ins, out, (load, compute, store)):
                return out
            for at in np.ndindex(*out.shape):
                index = tuple(np.int64(i) for i in at)
                values = [
                    load_element(run, mask, a, index, line, load)
                    if isinstance(a, (arrays.ArrayRef, arrays.RowView))
                    else a
                    for a in ins
                ]
                v = fn(*values)
                run.issue(compute, mask, arith_op(v, False))
                array, full = arrays.resolve(out, index)
                at = arrays.store(array, full, v, mask, run.counters.site(line), run.race, line)
                run.issue(
                    store,
                    mask,
                    memory_op(STORE_OP, array, at),
                    run.memory_cost(array, at, mask, store=True),
                )
            return out

        return with_deps(ufunc_out, {store.dst})

    def expr_List(self, node: ast.List) -> Node:
        raise self.unsupported(node, "lists are not supported in kernels (use cuda.local.array)")

    def inline(self, node: ast.Call, fn: JitFunction) -> Node:
        """A device function's body compiled into the caller, its parameters bound to the arguments."""
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments are not supported for {fn.name}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "*args in calls is not supported")
        if fn.py_func in self.inlining:
            return self.recursive_call(node, fn)
        arg_nodes = list(node.args)
        if isinstance(fn, InnerFunction):  # the enclosing variables it reads, as they are now
            arg_nodes += [ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node) for n in fn.captured]
        args = [self.expr(a) for a in arg_nodes]
        # an argument that is one of our typed parameters passes its type on (a.dtype inside)
        arg_types = tuple(self.param_types.get(a.id) if isinstance(a, ast.Name) else None for a in arg_nodes)
        callee = type(self)(
            fn.py_func,
            kernel=False,
            shared=self.shared,
            inlining=self.inlining,
            table=self.table,
            arg_types=arg_types,
            recursion=self.recursion,
        )
        # parameters given None, or left to a None default: numba types them none, so `p is
        # None` is decided when compiling
        names = [a.arg for a in callee.src.tree.args.args]
        defaults = getattr(fn.py_func, "__defaults__", None) or ()
        given = dict(zip(names, args))
        for name, value in zip(names[len(names) - len(defaults) :], defaults):
            given.setdefault(name, Const(value))
        callee.constants.update(
            {n: None for n, a in given.items() if isinstance(a, Const) and a.value is None}
        )
        cell = self.recursion.setdefault(fn.py_func, [None])
        compiled = callee.compile()
        if cell[0] is None:
            cell[0] = compiled
        self.grid_sync |= compiled.grid_sync
        missing = len(compiled.params) - len(args)
        if 0 < missing <= len(compiled.defaults):  # a device function's defaults fill the rest
            args += [
                Const(None if v is None else scalar(v))
                for v in compiled.defaults[len(compiled.defaults) - missing :]
            ]
        if len(args) != len(compiled.params):
            raise self.unsupported(
                node, f"{fn.name} takes {len(compiled.params)} arguments, given {len(args)}"
            )
        sig = fn.signature
        fns = [run_expr(a) for a in args]
        if sig is not None:
            fns = [_typed(f, t) for f, t in zip(fns, sig.args)]
        returns = sig.returns if sig is not None else None
        # the parameters take the arguments' readiness, as registers passed in
        params = [
            self.inst(node, Op.DEF, deps(a), n=0, dst=slot) for a, slot in zip(args, compiled.param_slots)
        ]

        def inline(run: Run, frame: Frame, mask: Mask) -> Any:
            inner = Frame(
                live=mask.threads,
                kernel=False,
                vars={p: f(run, frame, mask) for p, f in zip(compiled.params, fns)},
            )
            for d in params:
                run.define(d, mask)
            exec_block(compiled.body, run, inner, mask)
            if returns is not None and inner.ret is not None:
                return _cast(inner.ret, returns)
            return inner.ret

        return with_deps(inline, compiled.return_deps)

    def recursive_call(self, node: ast.Call, fn: JitFunction) -> Node:
        """A device function calling itself (numba-cuda compiles self-recursion with one set of
        argument types): the body compiled up the chain runs again, in a frame of its own, for
        the lanes that make the call, until each returns."""
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, f"a recursive call of {fn.name} takes positional arguments")
        if fn.py_func is self.inlining[0] and self.kernel:
            raise self.unsupported(node, f"kernel {fn.name} calls itself: only device functions may recurse")
        args = [self.expr(a) for a in node.args]
        fns = [run_expr(a) for a in args]
        sig = fn.signature
        if sig is not None:
            fns = [_typed(f, t) for f, t in zip(fns, sig.args)]
        returns = sig.returns if sig is not None else None
        cell = self.recursion[fn.py_func]
        call_inst = self.inst(node, None, frozenset().union(*(deps(a) for a in args)))

        def recurse(run: Run, frame: Frame, mask: Mask) -> Any:
            compiled = cell[0]
            if len(fns) != len(compiled.params):
                raise KernelMistake(f"{fn.name} takes {len(compiled.params)} arguments, given {len(fns)}")
            inner = Frame(
                live=mask.threads,
                kernel=False,
                vars={p: f(run, frame, mask) for p, f in zip(compiled.params, fns)},
            )
            run.issue(call_inst, mask, Op.BRA)
            exec_block(compiled.body, run, inner, mask)
            if returns is not None and inner.ret is not None:
                return _cast(inner.ret, returns)
            return inner.ret

        return with_deps(recurse, {call_inst.dst})


def _ufunc_at_once(
    run: Run, mask: Mask, fn: np.ufunc, ins: list[Any], out: Any, insts: tuple[Any, ...]
) -> bool:
    """``np.sin(x, r)`` (``Expressions.ufunc_out``) on whole arrays at once: read by
    ``arrays.load_whole``, computed by one call of the ufunc, written by
    ``arrays.store_whole``, each element's loads, compute and store issued in turn (traced in
    their places). Where the arrays name the same elements on every lane, every one inside,
    and ``out`` shares no memory with an operand (but for being that operand, element for
    element: each is read before it is written, as the loop does); not under racecheck (it
    hears each access in turn). False: nothing done, the loop decides (an error, a lane's
    own row, a read past the end)."""
    load, compute, store = insts
    target = arrays.whole_uniform(out)
    if target is None:
        return False
    out_array, out_index = target
    operands = []
    for a in ins:
        if not isinstance(a, (arrays.ArrayRef, arrays.RowView)):
            if np.ndim(a):
                return False  # a value of each lane's: each lane's result differs
            continue
        got = arrays.whole_uniform(a)
        if got is None:
            return False
        array, index = got
        if np.may_share_memory(array.data, out_array.data) and not (
            array is out_array and all(np.array_equal(i, j) for i, j in zip(index, out_index))
        ):
            return False  # overlapping: an element may be written before it is read
        operands.append(got)
    site = run.counters.site(load.line)
    # each operand read (one named twice is read twice, as the loop reads it), in order
    read = iter([arrays.load_whole(array, index, mask, site) for array, index in operands])
    result = fn(*(next(read) if isinstance(a, (arrays.ArrayRef, arrays.RowView)) else a for a in ins))
    arrays.store_whole(out_array, out_index, result, mask, site)
    n = out_index[0].size
    if run.trace is None:
        run.issue_times(load, mask, n * len(operands))
        run.issue_times(compute, mask, n)
        run.issue_times(store, mask, n)
        return True
    load_op, store_op = memory_op(LOAD_OP, out_array, ()), memory_op(STORE_OP, out_array, ())
    op = arith_op(result, False)
    costs = [run.global_costs(array, arrays.addresses_of(array, index), mask) for array, index in operands]
    stored = run.global_costs(out_array, arrays.addresses_of(out_array, out_index), mask, store=True)
    for k in range(n):
        for cost in costs:
            run.issue(load, mask, load_op, cost[k])
        run.issue(compute, mask, op)
        run.issue(store, mask, store_op, stored[k])
    return True


def _single_index(one: Expr, node: Node) -> Expr:
    """An index of one value (``node``, run as ``one``): a number, or a tuple of them."""

    def single(run: Run, frame: Frame, mask: Mask) -> tuple[Any, ...]:
        v = one(run, frame, mask)
        return v if isinstance(v, tuple) else (v,)

    def gen(g: Gen) -> str:
        v = g.expr(node)
        t = g.temp()
        g.line(f"{t} = {v} if isinstance({v}, tuple) else ({v},)")
        return t

    return with_deps(gen_of(single, gen), deps(node))


def _read_variable(name: str, slot: int) -> Node:
    """A read of local variable ``name`` (its value slot ``slot``)."""
    unset = f"'{name}' is used before it is assigned"

    def get(run: Run, frame: Frame, mask: Mask) -> Any:
        try:
            return frame.vars[name]
        except KeyError:
            raise UsedBeforeAssigned(unset) from None

    def gen(g: Gen) -> str:
        t = g.temp()
        g.line(f"{t} = frame.vars[{name!r}] if {name!r} in frame.vars else _unset({name!r})")
        return t

    return with_deps(gen_of(get, gen), {slot})


MULTIPLY = numba_binary(ast.Mult, operator.mul)


class Product:
    """``a * b`` not yet rounded: an add of its float type fuses it; anything else rounds it."""

    __slots__ = ("_value", "a", "b", "dtype")

    def __init__(self, a: Any, b: Any, inst: Any = None) -> None:
        self.a, self.b = a, b
        da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
        if da is not None and db is not None and "f" in (da.kind, db.kind):
            self._value = None
            self.dtype = np.result_type(da, db)
        else:  # integers (widened by numba's rules): never fused, so computed now
            self._value = MULTIPLY(a, b) if inst is None else affine.binary(inst, MULTIPLY, a, b, 0)
            self.dtype = np.asarray(self._value).dtype

    def rounded(self) -> Any:
        return MULTIPLY(self.a, self.b) if self._value is None else self._value


def binary_value(
    run: Run, mask: Mask, inst: Any, op: Any, divide: bool, flop: bool, add: int, a: Any, b: Any
) -> Any:
    """``a op b`` for the active lanes, issued (and its flops counted); integer arrays through
    ``affine.binary`` (``add``: +1 an addition, -1 a subtraction, else 0), which remembers a
    loop's index arithmetic."""
    v = affine.binary(inst, op, a, b, add)
    run.issue(inst, mask, arith_op(v, divide))
    if flop:
        run.count_flop(inst, mask, v)
    return v


def product_value(run: Run, mask: Mask, inst: Any, a: Any, b: Any) -> Product:
    """``a * b`` left for the add it feeds (``Product``), issued and counted as a multiply."""
    p = Product(a, b, inst)
    run.issue(inst, mask, arith_op(p, False))
    run.count_flop(inst, mask, p)
    return p


def multiply_add_value(
    run: Run, mask: Mask, inst: Any, op: Any, product_left: bool, subtract: bool, lv: Any, rv: Any
) -> Any:
    """``a * b ± c`` or ``c ± a * b`` (the product's side a ``Product``), fused where both are
    of one float type (``fma``), issued and counted."""
    p, c = (lv, rv) if product_left else (rv, lv)
    if fma.contracts(p.dtype, c):
        if product_left:
            v = fma.fused(p.a, p.b, -c if subtract else c, p.dtype)
        else:
            v = fma.fused(-p.a if subtract else p.a, p.b, c, p.dtype)
    else:  # not fused: integers through ``affine`` (a loop's ``row * N + k``)
        add = -1 if subtract else 1
        v = (
            affine.binary(inst, op, p.rounded(), c, add)
            if product_left
            else affine.binary(inst, op, c, p.rounded(), add)
        )
    run.issue(inst, mask, arith_op(v, False))
    run.count_flop(inst, mask, v)
    return v


def unary_value(run: Run, mask: Mask, inst: Any, op: Any, a: Any) -> Any:
    v = op(a)
    run.issue(inst, mask, arith_op(v, False))
    return v


def compare_value(run: Run, mask: Mask, inst: Any, ops: list[Any], vals: list[Any]) -> Any:
    """A chained comparison (``a < b <= c``): every pair's result and-ed, one issue."""
    result = ops[0](vals[0], vals[1])
    for op, a, b in zip(ops[1:], vals[1:], vals[2:]):
        result = result & op(a, b)
    run.issue(inst, mask)
    return result


def _tuple_gen(parts: list[Any]) -> Any:
    def gen(g: Gen) -> str:
        items = [g.expr(p) for p in parts]
        t = g.temp()
        g.line(f"{t} = ({', '.join(items)},)" if items else f"{t} = ()")
        return t

    return gen


def is_product(node: ast.expr) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)


def bit_count(x: Any) -> Any:
    """``int.bit_count()``: the set bits of the magnitude, as Python counts them."""
    a = np.asarray(x)
    if a.dtype.kind not in "iub":
        raise KernelMistake(f"bit_count() is a method of integers, not of {a.dtype}")
    out = np.bitwise_count(np.abs(a) if a.dtype.kind == "i" else a).astype(np.int64)
    return out if np.ndim(x) else np.int64(out)


def _is_njit(value: Any) -> bool:
    """A numba ``@njit`` (CPU) dispatcher: numba-cuda compiles it as a device function."""
    return type(value).__name__ == "CPUDispatcher" and callable(getattr(value, "py_func", None))


def load_element(run: Run, mask: Mask, base: Any, idx: tuple[Any, ...], line: int, inst: Any) -> Any:
    """``base[idx]`` for the active lanes: a tuple's item, a row of a matrix, a record (whose
    fields are read when named), or an element read from memory and counted."""
    if type(base) is arrays.GlobalArray:
        v = arrays.load_one(base, idx, mask, run.counters, run.race, line)
        if v is not None:  # one element every lane names
            run.issue(inst, mask, LOAD_OP["global"], run.memory_cost(base, idx, mask))
            return v
    if isinstance(base, tuple):
        if len(idx) != 1 or np.ndim(idx[0]):
            raise KernelMistake("tuples can only be indexed with one constant index")
        return base[int(idx[0])]
    array, full = arrays.resolve(base, idx)
    if len(full) < array.ndim:
        return arrays.RowView(array, full)
    if array.dtype.fields is not None:
        return arrays.RecordRef(array, full)
    v, at = arrays.load(array, full, mask, run.counters.site(line), run.race, line, run.past_end)
    past = run.past_end_lanes
    if past is not None:  # lanes that read just past the array's end: no address to time
        run.past_end_lanes = None
        mask = Mask(mask.arr & ~past)
    run.issue(inst, mask, memory_op(LOAD_OP, array, at, inst), run.memory_cost(array, at, mask))
    return v


def _uniform(value: Any, mask: Mask) -> Any:
    """A slice bound or index: one number where every active thread has the same, else each
    lane's own (inactive lanes given the first active one's, so they agree on the length)."""
    if value is None or not np.ndim(value):
        return None if value is None else int(value)
    active = value[mask.arr]
    if not active.size:
        return 0
    if (active != active[0]).any():
        return np.where(mask.arr, value, active[0]).astype(np.int64)
    return int(active[0])


def _cast(value: Any, dtype: np.dtype) -> Any:
    if isinstance(value, tuple):
        return value
    if np.ndim(value):
        with np.errstate(all="ignore"):
            return value.astype(dtype)
    return cast_scalar(value, dtype)


def _typed(fn: Expr, t: Any) -> Expr:
    """An argument converted to its parameter's declared scalar type."""
    if not isinstance(t, np.dtype):
        return fn
    return lambda run, frame, mask: _cast(fn(run, frame, mask), t)


def _lane_id_or(node: Const) -> Node:
    """``cuda.laneid`` is a per-lane value; every other global stays a constant."""
    if isinstance(node.value, Dim3Index) and node.value.name == "laneid":
        return lambda run, frame, mask: run.chunk.lane_id
    return node


def _fold(op: Callable[[Any, Any], Any], a: Any, b: Any, power: bool = False) -> Any:
    """An operation on two values known at compile time (Python folds ``2 ** -1`` to 0.5
    before numba sees it)."""
    if power and _negative_int_power(a, b):
        return np.float64(float(a) ** float(b))
    with np.errstate(all="ignore"):
        return op(a, b)


def _negative_int_power(a: Any, b: Any) -> bool:
    return bool(
        np.ndim(a) == np.ndim(b) == 0 and all(np.asarray(v).dtype.kind in "iu" for v in (a, b)) and b < 0
    )


def _as_load(node: ast.expr) -> ast.expr:
    """The target of ``x += v`` read as a value."""
    copy = ast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
    copy.ctx = ast.Load()  # type: ignore[attr-defined]
    return copy


def _missing(namespace: Namespace, attr: str) -> AttributeError:
    try:
        getattr(namespace, attr)
    except AttributeError as e:
        return e
    return AttributeError(attr)


def _describe(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
