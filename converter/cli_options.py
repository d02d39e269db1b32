"""The command line's parsing (cli.py's options): the click parameter types and the option groups several commands
share, each a decorator factory given the words that differ between them, as Polygraphy's tools/args groups; and
the three ways cli.py prints to stdout (``say``, ``live_line``, ``flush_stdout``), none stopped by a closed pipe.
A front door like cli.py: of the package it imports only ``api`` (used when a value is parsed), ``errors`` and, when
a help or a completion shows them, the target registry; docs/cli.md has every option at length."""

from __future__ import annotations

import functools
import os
import sys

import click

from . import api  # (a front door that imports each name on first use; --help imports none)
from .errors import UserError


class Number(click.ParamType):
    """A tolerance: a number >= 0 (inf allowed, as in spec files); or, ``seconds``, a time limit > 0 whose inf is
    None (no limit). NaN, which would disable a check silently, is refused by both."""

    def __init__(self, seconds: bool = False):
        self.seconds, self.name = seconds, "seconds" if seconds else "number"

    def convert(self, value, param, ctx):
        if value is None:
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number" + (" of seconds" if self.seconds else ""), param, ctx)
        if self.seconds and not number > 0:
            self.fail(f"{value}: must be a number of seconds > 0, or inf for no timeout", param, ctx)
        if not number >= 0:
            self.fail(f"{value}: must be a number >= 0", param, ctx)
        return None if self.seconds and number == float("inf") else number


class PerOutput(click.ParamType):
    """Polygraphy's ``[OUTPUT:]VALUE``: VALUE checked here (a usage error naming the option), kept as text; the
    library parses it (compare.parse_per_output: OUTPUT is what precedes the last ':')."""

    def __init__(self, choices=None):
        self.choices = choices
        self.name = "[OUTPUT:]" + ("{" + ",".join(choices) + "}" if choices else "VALUE")

    def convert(self, value, param, ctx):
        name, colon, text = str(value).rpartition(":")
        if colon and not name:
            self.fail(f"{value!r}: no output name before ':' (OUTPUT:VALUE, or VALUE for every output)", param, ctx)
        if self.choices is not None and text not in self.choices:
            self.fail(f"{value!r}: {text!r} is not one of {', '.join(self.choices)}", param, ctx)
        if self.choices is None:
            Number().convert(text, param, ctx)
        return str(value)


def size(ctx, param, value):
    """A byte count written as 2G, 512M, ... (budget.parse_size); a bad one is a usage error naming the option."""
    try:
        return None if value is None else api.parse_size(value)
    except UserError as exc:  # (the value given, then why: the option is named by click)
        raise click.BadParameter(f"{value}: {str(exc).split(': ', 1)[-1]}") from None


def target_summaries() -> list[tuple[str, str]]:
    """(name, one line) of every target the registry has, read when a help or a completion shows them: a target
    registered by then (a --plugin's) is listed too, and --help imports no onnx."""
    from .targets import profiles  # start-up time: only a help or a completion that shows the targets reads them

    return profiles.target_summaries()


class TargetOption(click.Option):
    """``--target``: its help lists the registry's targets when shown (between ``before`` and ``after``), and shell
    completion offers their names (and ``also``'s). Not a click.Choice: the registry checks the name when the
    command runs, after --plugin has imported what it adds."""

    def __init__(self, *args, before: str = "", after: str = "", also: tuple[str, ...] = (), **kwargs):
        def complete(ctx, param, incomplete: str):
            from click.shell_completion import CompletionItem

            return [CompletionItem(name, help=summary or None) for name, summary in
                    [*((a, "") for a in also), *target_summaries()] if name.startswith(incomplete)]

        super().__init__(*args, shell_complete=complete, **kwargs)
        self.around = (before, after)

    def process_value(self, ctx, value):
        """An empty name is no target (it was taken as none given: validate's ids then lost their [TARGET])."""
        value = super().process_value(ctx, value)
        for v in value if isinstance(value, tuple) else (value,):
            if v is not None and not v.strip():
                raise click.BadParameter(f"{v!r}: an empty name is no target; its --help lists them", ctx=ctx, param=self)
        return value

    def get_help_record(self, ctx):
        listed = "; ".join(f"{name} ({summary})" if summary else name for name, summary in target_summaries())
        self.help = " ".join(part for part in (self.around[0], f"A target: {listed}; or one a --plugin adds. The "
                             "runtime need not be installed (docs/semantics.md, Targets).", self.around[1]) if part)
        return super().get_help_record(ctx)


def group(*decorators):
    """One decorator applying ``decorators``: the first written is the first shown."""
    return lambda fn: functools.reduce(lambda f, d: d(f), reversed(decorators), fn)


def path_option(*names, help: str, metavar: str = "FILE", dash_is_stdout: bool = False, **path):
    """A file option; ``dash_is_stdout``: ``-`` names standard output, as /dev/stdout does (a report printed after
    the run's own lines)."""
    return click.option(*names, type=click.Path(**path), default=None, metavar=metavar, help=help,
                        callback=_dash_to_stdout if dash_is_stdout else None)


def _dash_to_stdout(ctx, param, value):
    return "/dev/stdout" if value == "-" else value


RUNTIMES = click.Choice(["onnxruntime", "onnx-reference", "openvino"])
OPT_LEVELS = click.Choice(["disabled", "basic", "extended", "all"])
ONNX_FOLDER = "A folder: one test_data_set_N of onnx's layout (its output_K.pb, the K-th output of the model)."
PICTURES = ("for each failing comparison a histogram of the error, error against magnitude and a heatmap per 2-D slice "
            "(the worst element marked, its index written)")
PEAK = "whose estimated peak (from its shapes, before anything is allocated) is"


def target_option(after: str, lower: bool = True, several: bool = False):
    """--target (TargetOption): convert's and validate's lower for it (and take auto), check's checks models."""
    before = "Lower for this target and check that it runs every node." + (
        " Repeatable: every case runs for each target given, its id ending in [TARGET] (the JSON report's 'target' "
        "says which ran)." if several else "") if lower else ""
    return click.option("--target", "targets" if several else "target", multiple=several, default=None,
                        metavar="TARGET", cls=TargetOption, also=("auto",) if lower else (), before=before, after=after)


def precision_options(what: str):
    """``--fp16``/``--int8``, trtexec's flags: the precision a TensorRT build allows, given to the command as one
    ``precision`` tuple (("fp16", "int8") for both)."""
    def decorate(command):
        @functools.wraps(command)
        def wrapper(*args, fp16: bool, int8: bool, **kwargs):
            return command(*args, precision=tuple(n for n, on in (("fp16", fp16), ("int8", int8)) if on), **kwargs)

        return group(
            click.option("--fp16", is_flag=True, help=f"As trtexec --fp16: the TensorRT build allows FP16 {what}; on "
                         "tensorrt-dla a float32 network then runs in FP16 (the model stays float32), without it "
                         "float32 is refused there. Also the spec's `precision: [fp16]`. Only tensorrt and "
                         "tensorrt-dla read --fp16/--int8: for another target a warning says the flag means nothing. "
                         "docs/semantics.md, DLA precision."),
            click.option("--int8", is_flag=True, help=f"As trtexec --int8: the TensorRT build allows INT8 {what}."),
        )(wrapper)

    return decorate


def provider_option(more: str = ""):
    return click.option("--provider", default="cpu", show_default=True, metavar="NAME", help=(
        "onnxruntime execution provider: cpu, cuda, tensorrt, dml, openvino, ... (or a full name such as "
        f"CUDAExecutionProvider). Fails, naming what is installed, when this onnxruntime lacks it{more}."))


def model_options(golden: str):
    """run's and reduce's: the runtimes and the inputs of a MODEL (``golden``: what --load-outputs does)."""
    return group(
        click.option("--runtime", "runtimes", multiple=True, type=RUNTIMES, help="MODEL: a runtime to run it on; "
                     "repeat for several (every pair is compared). Default: onnxruntime and onnx-reference (onnx's "
                     "ReferenceEvaluator, pure Python: slow on big models)."),
        provider_option(),
        click.option("--ort-opt-level", "opt_levels", type=OPT_LEVELS, multiple=True, help="MODEL: onnxruntime graph "
                     "optimization level (default all); repeat to run at several (each is one more runtime)."),
        click.option("--shapes", multiple=True, metavar="NAME:DxD", help="MODEL: bind an input's shape, trtexec's "
                     "syntax: --shapes x:1x3x224x224,y:1x10 (or repeated; NAME:[1,3,224,224] too; 'in:0':1x3 takes a "
                     "quoted name as written). Wins over the profile, within its min..max. A symbolic dimension left "
                     "unbound (and in no profile) is 1 (said on stderr); a rank or dimension the model contradicts is "
                     "refused (exit 2)."),
        click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
                     help="MODEL: seed of the generated inputs (one stream per input name)."),
        click.option("--val-range", "val_ranges", multiple=True, metavar="[NAME:]LOW,HIGH", help="MODEL: range of an "
                     "input's generated values (LOW,HIGH alone: every input): floats uniform in [LOW, HIGH), integers "
                     "(and bools) in [LOW, HIGH]; default [0, 1], as Polygraphy's."),
        path_option("--load-inputs", metavar="FILE.npz|DIR", help="MODEL: feed these inputs (one array per input name, "
                    "never unpickled, checked against the model). " + ONNX_FOLDER.replace("output", "input")),
        path_option("--load-outputs", metavar="FILE.npz|DIR", help="MODEL: " + golden),
        click.option("--allow-nonfinite", is_flag=True, help="MODEL: compare NaN and infinite outputs as values (NaN "
                     "matches NaN, an infinity the same one, whatever the tolerance). Default: an output holding one "
                     "fails (exit 1), as Polygraphy's --validate."))


def tolerance_options(m: str, default: str, of: str):
    """--atol, --rtol and --check-error-stat (validate, run, reduce): Polygraphy's [OUTPUT:]VALUE. ``m``: run's and
    reduce's "MODEL: "; ``default``: where the tolerance is otherwise taken from; ``of``: whose outputs OUTPUT names."""
    syntax = ("Repeatable, [OUTPUT:]VALUE as Polygraphy's: a bare VALUE for every output, OUTPUT:VALUE for that "
              f"output alone (it wins over the bare one); an OUTPUT that is no output of {of} is refused (exit 2).")
    say = (lambda text: m + text) if m else (lambda text: text[0].upper() + text[1:])
    return group(*(click.option(f"--{which[0]}tol", type=PerOutput(), multiple=True, metavar="[OUTPUT:]VALUE",
                                help=say(f"{which} tolerance (>= 0) for float outputs ({default}). {syntax}"))
                   for which in ("absolute", "relative")),  # (--atol, --rtol)
                 click.option("--check-error-stat", type=PerOutput(("elemwise", "max", "mean", "median")),
                              multiple=True, metavar="[OUTPUT:]STAT", help=say(
                                  "which statistic of the error must be within tolerance: elemwise (the default: "
                                  "each element, |a-b| <= atol + rtol*|b|), or max, mean or median, which fail where "
                                  "that statistic of the absolute error is above atol and that of the relative error "
                                  "above rtol (Polygraphy's --check-error-stat). A NaN or infinity that differs fails "
                                  "whatever the statistic. " + syntax.replace("VALUE", "STAT"))))


def max_memory_option(what: str = ""):
    """--max-memory SIZE: the budget of one ``what`` ("spec", "model"), refused above it by its estimated peak; run's
    and reduce's (no ``what``): a model by its size, a spec by its estimated peak."""
    whose = f"a {what} {PEAK}" if what else ("a MODEL whose size with its external data and inputs, or a SPEC whose "
                                             "estimated peak, is")
    return click.option("--max-memory", default=None, metavar="SIZE", callback=size, help=(
        f"Memory budget{f' for one {what}' if what else ''}, e.g. 2G or 512M: {whose} above it is refused (exit status "
        "2). Default: 1/8 of the RAM."))


def timeout_option(help: str, default: float | None = None):
    return click.option("--timeout", type=Number(seconds=True), default=default, show_default=default is not None,
                        metavar="SECONDS", help=help)


opset_option = click.option("--opset", type=int, default=None, metavar="N", help="Target ONNX opset (13 up to the "
                            "newest the installed onnxruntime loads). Default: the spec's own 'opset', else 17.")
plugin_option = click.option("--plugin", "plugins", multiple=True, metavar="MODULE|FILE.py", help="Import a module "
                             "that registers extra layer kinds or targets (docs/architecture.md). Repeatable.")


def html_option(what: str):
    return click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                        callback=_no_dash, help="Write one self-contained HTML page (no network request, no script): "
                        + what.format(pictures=PICTURES))


def _no_dash(ctx, param, value):
    if value == "-":  # (it made a file named '-'; stdout carries the run's lines)
        raise click.BadParameter("'-': a page is written to a FILE, not to stdout (which carries the run's lines)",
                                 ctx=ctx, param=param)
    return value


def names_stdout(path) -> bool:
    """Whether ``path`` (an output option's value) is this process's standard output: /dev/stdout (``-``), or the file
    or pipe stdout is: a status line printed there would be written into the output."""
    if path is None:
        return False
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # (no such file yet; stdout not a real file: a test's capture)
        return str(path) in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def report_options(json: str, junit: str):
    """--json FILE and --junit FILE (validate, run, report merge)."""
    return group(path_option("--json", "json_path", dir_okay=False, dash_is_stdout=True, help=json + " - is stdout."),
                 path_option("--junit", "junit_path", dir_okay=False, dash_is_stdout=True, help=junit + " - is stdout."))


def for_kind(ctx, file, options: dict, spec_only: tuple, spec_says: str, both: tuple) -> tuple[bool, dict]:
    """Whether FILE (run's, reduce's) is an ONNX model, and the ``options`` for its kind: a model's all but
    ``spec_only``, a spec's ``spec_only`` and ``both``. An option of the other kind given is a usage error naming the
    first (exit 2)."""
    model = api.is_onnx_model(file)
    given = {n for n in ctx.params if ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT)}
    wrong = sorted(given & set(spec_only) if model else given - {*spec_only, *both, "file", "debug"})
    if wrong:
        option = next(p for p in ctx.command.params if p.name == wrong[0]).opts[-1]
        raise UserError(f"{option}: {file} is " + (f"an ONNX model: {spec_says} are for spec files" if model else
                        f"a spec file: that option is for ONNX models ({ctx.info_name} MODEL.onnx)"))
    return model, {k: v for k, v in options.items() if (k not in spec_only if model else k in {*spec_only, *both})}


def say(*lines: str, err: bool = False) -> None:
    """click.echo of each line; a closed stdout (`validate | head`) stops none: the run and its reports go on."""
    for line in lines:
        if err:
            click.echo(line, err=True)
        else:
            _to_stdout(click.echo, line)


def live_line(line: str) -> None:
    """validate's live lines, unflushed: ``flush_stdout`` sends them whenever the run waits (a flush per line was
    most of the parent's work per case, on the cores the workers need)."""
    _to_stdout(sys.stdout.write, line + "\n")


def flush_stdout() -> None:
    _to_stdout(sys.stdout.flush)


def _to_stdout(write, *args) -> None:
    try:
        write(*args)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")


def command_path(group: click.Group, error: click.UsageError, prog_name: str | None, args) -> str:
    """The command a usage error is about: its context's path, else (an option given without its value fails before
    click makes the command's context) the words that name a command at the front of ``args`` (default: sys.argv's),
    'spec2onnx validate' or 'spec2onnx report merge'."""
    if error.ctx is not None:
        return error.ctx.command_path
    path = [prog_name or "spec2onnx"]
    for word in sys.argv[1:] if args is None else args:
        command = group.commands.get(word) if isinstance(group, click.Group) else None
        if command is None:
            break
        path.append(word)
        group = command
    return " ".join(path)


def refuse_timeout_in_process(jobs: int, timeout: float | None) -> None:
    """validate -j 0 runs the cases in this process, where a hanging one cannot be stopped: a --timeout given (not
    the default, not inf) would be a promise the run cannot keep."""
    source = click.get_current_context().get_parameter_source("timeout")
    if jobs == 0 and timeout is not None and source is not click.core.ParameterSource.DEFAULT:
        raise UserError("--timeout: -j 0 runs the cases in this process, where none can be stopped; "
                        "-j 1 runs them in one worker process, with the time limit")


# -- what a recorded command line means (report merge compares the shards of one run by it) ------------------------

class CommandReading:
    """A report's recorded command as this command line reads it: ``name`` (validate, run), ``words`` (each
    parameter's names, or () for a positional word, with its words as written) and ``values`` (each parameter's
    names, its shown name and its value as a run takes it: converted, a path normalized, an option left out as its
    default). The report layer keeps to this data: it never imports the command line."""

    def __init__(self, name: str, words: list, values: list):
        self.name, self.words, self.values = name, tuple(words), tuple(values)

    def meaning(self, skip) -> tuple:
        """(shown name, value) of every parameter whose names ``skip`` does not take (the per-shard ones)."""
        return tuple((shown, value) for names, shown, value, _ in self.values if not skip(names))

    def run_words(self, skip) -> tuple[str, ...]:
        """The command's name and its words as written, less those of the parameters ``skip`` takes."""
        return (self.name, *(word for names, texts in self.words if not (names and skip(names)) for word in texts))

    def given(self, shown: str) -> str:
        """What the command gave the parameter shown as ``shown``, as written ('(not given)' where it gave nothing)."""
        return next((text for _, name, _, text in self.values if name == shown), "(not given)")


def read_command(group: click.Group, command) -> CommandReading | None:
    """``command`` (a report's, from argv[0]) read with ``group``'s own definitions, so that the options' meaning is
    compared: ``--atol=0.5`` and ``--atol 0.5``, ``-x`` and ``--fail-fast``, ``-qj2``, in any order, ``30`` and ``30.0``
    seconds, ``.`` and ``./``. None where it is not one of the group's commands or does not parse (an unknown
    option, a missing value, a counted option): the report then compares it as written."""
    if len(command) < 2 or command[1] not in group.commands:
        return None
    cmd = group.commands[command[1]]
    options: dict[str, tuple] = {}
    for param in cmd.params:
        if isinstance(param, click.Option):
            if param.count or param.nargs < 1:
                return None
            options |= {n: (param, True) for n in param.opts} | {n: (param, False) for n in param.secondary_opts}
    parsed = _parse_words(list(command[2:]), options, [p for p in cmd.params if isinstance(p, click.Argument)])
    if parsed is None:
        return None
    given: dict[str, list] = {}
    for param, _, values in parsed:
        if param is not None:
            given.setdefault(param.name, []).extend(values)
    words = [(tuple(getattr(param, "opts", ())) if param is not None else (), texts) for param, texts, _ in parsed]
    values = [(tuple(p.opts), _shown(p), _param_value(p, given.get(p.name)), _given(p, given.get(p.name)))
              for p in cmd.params]
    return CommandReading(command[1], words, values)


def _parse_words(args: list, options: dict, arguments: list) -> list | None:
    """(parameter or None, its words as written, its values) in the order given; positional words get their
    argument; None where the words do not parse."""
    words, positional, i = [], [], 0

    def value_of(param, attached: str | None) -> tuple[list, list] | None:  # (its words after the option, values)
        nonlocal i
        if attached is not None:
            return ([], [attached]) if param.nargs == 1 else None
        taken = args[i + 1:i + 1 + param.nargs]
        if len(taken) < param.nargs:
            return None
        i += param.nargs
        return taken, taken

    while i < len(args):
        arg = args[i]
        if arg == "--":
            words.append((None, [arg], []))
            for rest in args[i + 1:]:
                positional.append(len(words))
                words.append((None, [rest], [rest]))
            break
        if arg.startswith("--"):
            name, eq, attached = arg.partition("=")
            if name not in options:
                return None
            param, on = options[name]
            if param.is_flag:
                if eq:
                    return None
                words.append((param, [arg], [on]))
            else:
                start = i
                taken = value_of(param, attached if eq else None)
                if taken is None:
                    return None
                words.append((param, args[start:i + 1], taken[1]))
        elif arg.startswith("-") and len(arg) > 1:  # short options, grouped (-qx) or with their value (-j2)
            for k in range(1, len(arg)):
                if "-" + arg[k] not in options:
                    return None
                param, on = options["-" + arg[k]]
                if param.is_flag:
                    words.append((param, ["-" + arg[k]], [on]))
                    continue
                taken = value_of(param, arg[k + 1:] or None)
                if taken is None:
                    return None
                words.append((param, ["-" + arg[k:]] if arg[k + 1:] else ["-" + arg[k], *taken[0]], taken[1]))
                break
        else:
            positional.append(len(words))
            words.append((None, [arg], [arg]))
        i += 1
    fixed = sum(p.nargs for p in arguments if p.nargs > 0)
    if len(positional) < fixed or (len(positional) > fixed and not any(p.nargs < 0 for p in arguments)):
        return None
    at = 0
    for param in arguments:
        take = param.nargs if param.nargs > 0 else len(positional) - fixed
        for index in positional[at:at + take]:
            words[index] = (param, *words[index][1:])
        at += take
    return words


def _param_value(param, values: list | None):
    """A parameter's value as a run takes it: the last one given (every one, in order, for a repeatable option or
    arguments: the first --runtime is the baseline), else its default; each normalized (_normal)."""
    several = getattr(param, "multiple", False) or param.nargs < 0
    if values is None:
        default = param.default if isinstance(param.default, (str, int, float, tuple, list, type(None))) else None
        if getattr(param, "is_flag", False):
            return bool(default)
        if several:
            return tuple(_normal(param, v) for v in (default or ()))
        return None if default is None else _normal(param, default)
    if getattr(param, "is_flag", False):
        return bool(values[-1])
    return tuple(_normal(param, v) for v in values) if several else _normal(param, values[-1])


def _normal(param, value):
    """One value, normalized: a path as os.path.normpath writes it (``./a/`` is ``a``), else converted by its type
    (``30`` and ``30.0`` seconds are one number) and its callback (``2G`` bytes), a per-output tolerance
    ``[OUTPUT:]VALUE`` as (OUTPUT, number); the text itself where a conversion fails."""
    if isinstance(param.type, click.Path):
        return os.path.normpath(str(value))
    try:
        value = param.type.convert(value, param, None)
        if param.callback is not None:
            value = param.callback(None, param, value)
    except Exception:  # noqa: BLE001 - a value this command line refuses: compared as written
        return str(value)
    if isinstance(param.type, PerOutput) and param.type.choices is None and isinstance(value, str):
        output, _, number = value.rpartition(":")
        try:
            return output, float(number)
        except ValueError:
            return value
    return value


def _shown(param) -> str:
    """An option by its long name (``--fail-fast``, not ``-x``); an argument by its name."""
    if param.param_type_name == "argument":
        return param.name.upper()
    return next((o for o in param.opts if o.startswith("--")), param.opts[0])


def _given(param, values: list | None) -> str:
    """What a command gave a parameter, as written ('(not given)' where nothing)."""
    if not values:
        return "(not given)"
    if getattr(param, "is_flag", False):
        return "(given)" if values[-1] else "(not given)"
    return " ".join(map(str, values))
