"""Run the spec2onnx command line from a source checkout: ``python cli.py validate ...``.

The code is ``converter/cli.py``, installed as ``spec2onnx.cli`` (the ``spec2onnx`` console script).
"""

from converter.cli import console, main  # noqa: F401 - main: tests invoke it in-process (CliRunner)

if __name__ == "__main__":
    console()
