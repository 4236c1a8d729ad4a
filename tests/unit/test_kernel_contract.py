"""The contract between each registered algorithm's state (:class:`cae._storage.ArrayState`) and its kernel.

The contract is by name: a kernel's ``run(X, start, <state arrays>, track, trace)`` names the arrays it takes,
and the state passes its attribute of each name; inside ``run``, the arrays are bundled into named tuples whose
fields carry the same names; the scalar and record slots (``I_*``, ``F_*``, ``RI_*``, ``RF_*``) are named once,
in the kernel. Every algorithm of :data:`cae.registry.ALGORITHMS` is checked, so a new one is picked up by itself.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from cae._storage import ArrayState, kernel_parameters, run_arrays
from cae.registry import ALGORITHMS


def _states():
    """The state class of each registered algorithm (CAEA shares CAE's), with one registry entry that makes it."""
    out = {}
    for spec in ALGORITHMS.values():
        out.setdefault(spec.estimator_class._State, spec)
    return out


STATES = _states()


def _state(cls, d=3):
    """A fresh state as the estimator makes it (with the registry's small parameters)."""
    spec = STATES[cls]
    return spec.make(**spec.small)._new_network(d)


def _source_tree(kernel):
    return ast.parse(Path(kernel.__file__).read_text(encoding="utf-8"))


@pytest.fixture(params=list(STATES), ids=lambda c: c.__name__)
def State(request):
    return request.param


def test_the_state_passes_run_the_arrays_it_names(State):
    """The arrays passed to ``run`` are its own parameters, by name, and the state has each of them."""
    kernel = State.KERNEL
    assert kernel.__name__ in STATES[State].kernels
    names = run_arrays(kernel)
    assert State.RUN_ARGS == names
    assert kernel_parameters(kernel.run) == ("X", "start", *names, "track", "trace")
    st = _state(State)
    missing = [n for n in names if not hasattr(st, n)]
    assert missing == [], f"{State.__name__} has no array for run's parameters {missing}"


def _arrays(st):
    return {name for name, value in vars(st).items() if isinstance(value, np.ndarray)}


def test_every_array_the_state_allocates_is_used_by_run(State):
    """No array the state allocates (node arrays, scalars, scratch, also after growing) is left out of run."""
    st = _state(State)
    assert _arrays(st) <= set(State.RUN_ARGS), sorted(_arrays(st) - set(State.RUN_ARGS))
    st.run(np.random.default_rng(0).random((200, 3)))
    st._grow()  # a larger capacity reallocates the scratch
    assert _arrays(st) <= set(State.RUN_ARGS), sorted(_arrays(st) - set(State.RUN_ARGS))


def bundles_by_position(tree):
    """``(function, tuple, field, argument)`` of every named-tuple construction in a kernel's source whose
    argument is not named as the field it fills (``rec_<field>`` for the step record's lists is the same name)."""
    fields = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == "namedtuple":
                spec = node.value.args[1]
                names = spec.value.replace(",", " ").split() if isinstance(spec, ast.Constant) else None
                fields[node.targets[0].id] = names
    bad = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for call in ast.walk(fn):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in fields:
                names = fields[call.func.id]
                if names is None or len(call.args) != len(names) or call.keywords:
                    bad.append((fn.name, call.func.id, "?", "?"))
                    continue
                for field, arg in zip(names, call.args):
                    given = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else ""
                    if given not in (field, f"rec_{field}"):
                        bad.append((fn.name, call.func.id, field, given))
    return bad


def test_the_named_tuples_are_filled_by_name(State):
    """Inside the kernel, each array goes into the tuple field of its own name (``net.Y`` is ``run``'s ``Y``)."""
    assert bundles_by_position(_source_tree(State.KERNEL)) == []


#: slot prefix -> (the constant with the number of slots, the state's array)
SLOTS = {"I_": ("N_ISCAL", "iscal"), "F_": ("N_FSCAL", "fscal"), "RI_": ("N_RI", "ri"), "RF_": ("N_RF", "rf")}


def slot_constants(tree):
    """``{prefix: {name: value}}`` of the integer slot constants a kernel module defines."""
    out = {prefix: {} for prefix in SLOTS}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
        ):
            name = node.targets[0].id
            for prefix in SLOTS:
                if name.startswith(prefix):
                    out[prefix][name] = node.value.value
    return out


def test_each_slot_is_named_once_and_fits_its_array(State):
    """The slot constants of each scalar/record array are distinct and inside the array the state allocates."""
    kernel, st = State.KERNEL, _state(State)
    for prefix, slots in slot_constants(_source_tree(kernel)).items():
        size_name, array = SLOTS[prefix]
        size = getattr(kernel, size_name)
        assert getattr(st, array).shape == (size,), (array, size_name)
        assert slots, f"{kernel.__name__} names no {prefix}* slot of {array}"
        values = list(slots.values())
        assert len(set(values)) == len(values), f"{kernel.__name__}: two {prefix}* slots share a number: {slots}"
        assert all(0 <= v < size for v in values), f"{kernel.__name__}: a {prefix}* slot outside {array}: {slots}"
        assert all(getattr(kernel, n) == v for n, v in slots.items())


def test_the_trace_writes_each_named_column_once(State):
    """``write_trace`` fills every column of ``TRACE_COLUMNS`` once (its numbers are the names' positions)."""
    kernel = State.KERNEL
    fn = next(n for n in _source_tree(kernel).body if isinstance(n, ast.FunctionDef) and n.name == "write_trace")
    cols = [
        t.slice.elts[1].value
        for node in ast.walk(fn)
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "trace"
    ]
    assert sorted(cols) == list(range(len(kernel.TRACE_COLUMNS)))


# ------------------------------------------------------------ the checks catch a broken contract
def test_a_declared_argument_list_must_be_runs_own(State):
    """A state may still declare ``RUN_ARGS`` (the names of ``run``'s arrays); in another order it is refused."""
    names = run_arrays(State.KERNEL)
    ok = type("Declared", (State,), {"RUN_ARGS": names})
    assert ok.RUN_ARGS == names
    swapped = (names[1], names[0], *names[2:])
    with pytest.raises(TypeError, match="RUN_ARGS"):
        type("Swapped", (State,), {"RUN_ARGS": swapped})


def test_the_checks_catch_two_swapped_names():
    """Two arrays swapped in a named tuple, two slots sharing a number, a ``run`` of another shape: caught."""
    tree = _source_tree(next(iter(STATES)).KERNEL)
    run = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    call = next(
        c for c in ast.walk(run) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "Net"
    )
    call.args[0], call.args[1] = call.args[1], call.args[0]
    assert len(bundles_by_position(tree)) == 2

    tree = ast.parse("I_K = 0\nI_T = 0\nF_V = 0\nRI_CASE = 0\nRF_V1 = 3\n")
    assert slot_constants(tree) == {
        "I_": {"I_K": 0, "I_T": 0},
        "F_": {"F_V": 0},
        "RI_": {"RI_CASE": 0},
        "RF_": {"RF_V1": 3},
    }

    class NoSuchKernel:
        __name__ = "no_such_kernel"

        @staticmethod
        def run(X, start, Y, trace, track):
            return -1

    with pytest.raises(TypeError, match="run must be"):
        type("Bad", (ArrayState,), {"KERNEL": NoSuchKernel})
