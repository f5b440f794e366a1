"""Typing: the package is marked typed (py.typed), the extension's stub
(_mallat.pyi) names what the compiled module has, with the same parameters
in the same order, and the public functions take their options by keyword
only, each annotated, with help() telling the options, defaults and errors."""

import ast
import inspect
import pathlib
import re

import mallat
from mallat import _mallat

PACKAGE = pathlib.Path(mallat.__file__).parent


def stub_functions():
    """(qualified name, parameter names) of every def in the stub."""
    tree = ast.parse((PACKAGE / "_mallat.pyi").read_text())
    found = {}

    def visit(nodes, prefix):
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                found[prefix + node.name] = None
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
                found[prefix + node.name] = [a.arg for a in node.args.args + node.args.kwonlyargs
                                             if a.arg != "self"]
            elif isinstance(node, ast.FunctionDef):
                found[prefix + node.name] = "property"
    visit(tree.body, "")
    return found


def runtime_parameters(obj):
    """The parameter names pybind11 writes in a function's signature line."""
    first = obj.__doc__.splitlines()[0]
    inside = first[first.index("(") + 1:first.rindex(")")]
    return [p.split(":")[0].strip() for p in re.split(r",\s*(?![^\[]*\])", inside)
            if p and p.split(":")[0].strip() not in ("self", "*")]


def test_stub_matches_the_extension():
    assert (PACKAGE / "py.typed").is_file()
    stub = stub_functions()
    public = {n for n in dir(_mallat) if not n.startswith("_")}
    assert public == {n for n in stub if "." not in n}
    engine_members = {n for n in dir(_mallat.Engine) if not n.startswith("_")}
    assert engine_members == {n.split(".")[1] for n in stub if n.startswith("Engine.")} - {"__init__"}
    for name, params in stub.items():
        if params is None or params == "property":
            continue
        obj = _mallat
        for part in name.split("."):
            obj = getattr(obj, part)
        assert runtime_parameters(obj) == params, name


def test_options_are_keyword_only_annotated_and_documented():
    functions = [mallat.encode, mallat.decode, mallat.Engine.encode, mallat.Engine.decode,
                 mallat.Engine.encode_batch, mallat.Engine.decode_batch, mallat.write_image, mallat.Engine]
    for f in functions:
        signature = inspect.signature(f)
        params = [p for p in signature.parameters.values() if p.name != "self"]
        positional = [p.name for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert len(positional) <= (2 if f is mallat.write_image else 1), (f, positional)
        for p in params:
            assert p.annotation is not inspect.Parameter.empty, (f, p.name)
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                assert re.search(rf"\b{p.name}\b", f.__doc__), (f, p.name)
    for f in (mallat.encode, mallat.decode, mallat.Engine.encode, mallat.Engine.decode, mallat.Engine):
        assert "Errors:" in f.__doc__ and "default" in f.__doc__, f
