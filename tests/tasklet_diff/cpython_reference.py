"""CPython's value of each tasklet expression of a batch (tests/tasklet_diff, docs/testing.md).

Reads a JSON file: {"inputs": {name: value}, "exprs": [{"id": k, "text": EXPR, "type": T}]},
with floats as float.hex() strings, ints as decimal strings and bools as JSON booleans, and T
the output container's type ("float64", "int64", "bool"). Evaluates each expression with plain
Python floats, ints and bools and the math module, converts the result as storing it into the
container does (float(v), an int in int64's range, bool(v)), and prints one JSON line per
expression: {"id": k, "value": V} (floats as float.hex(), ints as decimal strings) or
{"id": k, "raises": "ExceptionName"} where CPython raises or its value has no such container
element ("IntOverflow": an int outside int64; "Complex": a complex result, also in between:
`abs((-8.0) ** 0.5)` is a float in CPython, NaN in weir, whose values are NumPy's).
"""
import ast
import json
import math
import sys


class _Powers(ast.NodeTransformer):
    """Every `a ** b` as `_pow(a, b)`, so that a complex intermediate value is seen."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            call = ast.Call(func=ast.Name(id="_pow", ctx=ast.Load()), args=[node.left, node.right], keywords=[])
            return ast.copy_location(call, node)
        return node


def _pow(a, b):
    r = a**b
    if isinstance(r, complex):
        raise TypeError("Complex")  # a negative number to a fractional power; weir: NaN
    return r


def decode(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.startswith("int:"):
        return int(v[4:])
    return float.fromhex(v)


def store(v, t):
    if isinstance(v, complex):
        raise TypeError("Complex")
    if t == "float64":
        return float(v).hex()
    if t == "bool":
        return bool(v)
    if isinstance(v, float):
        raise TypeError("float result for an int64 container")
    v = int(v)
    if not -(2**63) <= v < 2**63:
        raise OverflowError("IntOverflow")
    return str(v)


def main():
    with open(sys.argv[1]) as f:
        batch = json.load(f)
    inputs = {k: decode(v) for k, v in batch["inputs"].items()}
    env = {"__builtins__": {"abs": abs, "min": min, "max": max, "float": float, "int": int, "bool": bool}}
    env["math"] = math
    env["_pow"] = _pow
    out = []
    for e in batch["exprs"]:
        try:
            tree = ast.fix_missing_locations(_Powers().visit(ast.parse(e["text"], mode="eval")))
            v = eval(compile(tree, "<expr>", "eval"), env, dict(inputs))
            r = {"id": e["id"], "value": store(v, e["type"])}
        except (OverflowError, TypeError) as err:
            name = str(err) if str(err) in ("IntOverflow", "Complex") else type(err).__name__
            r = {"id": e["id"], "raises": name}
        except Exception as err:  # ZeroDivisionError, ValueError (math domain), ...
            r = {"id": e["id"], "raises": type(err).__name__}
        out.append(json.dumps(r))
    sys.stdout.write("\n".join(out) + "\n")


main()
