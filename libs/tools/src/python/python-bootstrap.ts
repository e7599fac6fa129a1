/**
 * The program `python3 -c` runs for a `kind: python` step (RESULT_SHAPES s4). It reads one JSON
 * document `{code, input, libs, context}` from stdin and writes exactly one JSON document to
 * fd 3: `{"ok": true, "result": ...}` or `{"ok": false, "error": {type, message, traceback}}`.
 * User output on stdout/stderr never mixes with the result.
 *
 * Globals of the user code: os, json, datetime, uuid; `input_data` (the input dict) and
 * `context` (the render scope); every input by name (an input may shadow any of these); then
 * `libs: {alias: module}` imports. The result is, in order: the value of a top-level `return`
 * (the code then runs as a function body whose bound names are declared global, so it keeps
 * module semantics and its line numbers), `result` as (re)assigned
 * by the code, `main(...)` called with arguments bound by name from the inputs, an input named
 * `result`, else None. Non-JSON values: tuples and sets -> lists, date/times -> isoformat,
 * Decimal -> int or float, bytes -> text (or base64), NaN/Infinity -> null, else str().
 *
 * Before the user code runs, the request's `limits` become rlimits and the process becomes a
 * child subreaper; after writing the result it waits for the worker, which kills whatever the
 * step left running (`killDescendants`) and then the process itself.
 */
export const PYTHON_BOOTSTRAP = String.raw`
import ast, base64, builtins, collections.abc, datetime, decimal, importlib, inspect, json, linecache, math, os, signal, sys, traceback, types, uuid

_FILENAME = '<code>'
_MISSING = object()


def _default(o):
    if isinstance(o, (set, frozenset)):
        try:
            return sorted(o)
        except TypeError:
            return list(o)
    if isinstance(o, (datetime.datetime, datetime.date, datetime.time)):
        return o.isoformat()
    if isinstance(o, datetime.timedelta):
        return o.total_seconds()
    if isinstance(o, decimal.Decimal):
        if o.is_finite() and o == o.to_integral_value():
            return int(o)
        return float(o) if o.is_finite() else None
    if isinstance(o, uuid.UUID):
        return str(o)
    if isinstance(o, (bytes, bytearray, memoryview)):
        raw = bytes(o)
        try:
            return raw.decode('utf-8')
        except UnicodeDecodeError:
            return base64.b64encode(raw).decode('ascii')
    if isinstance(o, collections.abc.Mapping):
        return dict(o)
    if isinstance(o, (range, collections.abc.KeysView, collections.abc.ValuesView, collections.abc.ItemsView)):
        return list(o)
    tolist = getattr(o, 'tolist', None)
    if callable(tolist):
        try:
            return tolist()
        except Exception:
            pass
    return str(o)


def _key(k):
    if isinstance(k, str):
        return k
    if k is None:
        return 'null'
    if isinstance(k, bool):
        return 'true' if k else 'false'
    return str(k)


def _sanitize(v, seen, depth=0):
    if v is None or isinstance(v, (str, bool, int)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if depth > 500:
        return str(v)
    if isinstance(v, (dict, list, tuple, set, frozenset)):
        if id(v) in seen:
            return '<cycle>'
        seen.add(id(v))
        try:
            if isinstance(v, dict):
                return {_key(k): _sanitize(x, seen, depth + 1) for k, x in v.items()}
            return [_sanitize(x, seen, depth + 1) for x in (_default(v) if isinstance(v, (set, frozenset)) else v)]
        finally:
            seen.discard(id(v))
    return _sanitize(_default(v), seen, depth + 1)


def _dumps(value):
    try:
        return json.dumps(value, default=_default, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return json.dumps(_sanitize(value, set()), default=str, allow_nan=False)


def _exception(e):
    te = traceback.TracebackException.from_exception(e)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename == _FILENAME])
    return {'type': type(e).__name__, 'message': str(e), 'traceback': ''.join(te.format())}


def _wrap(code):
    # The code becomes the body of a function so that "return" is legal. Every name the body
    # binds is declared global, so the body keeps module semantics: inputs can be reassigned,
    # "result = ..." and "def main" land in the globals, nested functions see each other.
    tree = ast.parse(code, _FILENAME)

    def build(names):
        module = ast.parse('def f():\n    pass\n', _FILENAME)
        function = module.body[0]
        function.name = '<module>'
        body = list(tree.body)
        if names:
            body.insert(0, ast.copy_location(ast.Global(names=sorted(names)), tree.body[0]))
        function.body = body
        ast.fix_missing_locations(module)
        return compile(module, _FILENAME, 'exec')

    probe = next(c for c in build([]).co_consts if isinstance(c, types.CodeType))
    return build(set(probe.co_varnames) | set(probe.co_cellvars))


def _call_main(main, inputs, g):
    try:
        signature = inspect.signature(main)
    except (TypeError, ValueError):
        return main()
    args, kwargs, used, var_kw = [], {}, set(), False
    for name, p in signature.parameters.items():
        if p.kind is p.VAR_POSITIONAL:
            continue
        if p.kind is p.VAR_KEYWORD:
            var_kw = True
            continue
        if name in inputs:
            value = inputs[name]
        elif name in ('input_data', 'context'):
            value = g.get(name)
        elif p.default is not p.empty:
            continue
        else:
            raise TypeError("main() parameter '%s' has no matching input" % name)
        used.add(name)
        if p.kind is p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[name] = value
    if var_kw:
        for k, v in inputs.items():
            if k not in used:
                kwargs[k] = v
    return main(*args, **kwargs)


def _exec_allowing_exit(fn):
    try:
        return fn()
    except SystemExit as e:
        if e.code not in (None, 0):
            raise
        return None


def _run(request):
    code = request.get('code') or ''
    inputs = request.get('input') if isinstance(request.get('input'), dict) else {}
    context = request.get('context') if isinstance(request.get('context'), dict) else {}
    libs = request.get('libs')

    module = types.ModuleType('noetl_step')
    sys.modules['noetl_step'] = module
    g = module.__dict__
    g.update({'__builtins__': builtins, 'os': os, 'json': json, 'datetime': datetime, 'uuid': uuid})
    g['input_data'] = inputs
    g['context'] = context
    g.update(inputs)
    if isinstance(libs, dict):
        for alias, name in libs.items():
            g[str(alias)] = importlib.import_module(str(name))

    linecache.cache[_FILENAME] = (len(code), None, code.splitlines(True), _FILENAME)
    before = g.get('result', _MISSING)
    try:
        compiled = compile(code, _FILENAME, 'exec')
        wrapped = False
    except SyntaxError as e:
        if "'return' outside function" not in str(e.msg):
            raise
        compiled = _wrap(code)
        wrapped = True

    if wrapped:
        exec(compiled, g)
        returned = _exec_allowing_exit(g.pop('<module>'))
        if returned is not None:
            return returned
    else:
        _exec_allowing_exit(lambda: exec(compiled, g))

    after = g.get('result', _MISSING)
    if after is not _MISSING and after is not before:
        return after
    main = g.get('main')
    if callable(main):
        value = _call_main(main, inputs, g)
        if inspect.iscoroutine(value):
            import asyncio
            value = asyncio.run(value)
        return value
    return None if after is _MISSING else after


def _contain(limits):
    # A child subreaper: a process the step starts and orphans is reparented here, not to init,
    # so the worker finds (and kills) every one of them while this process waits to be killed.
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass
    if not isinstance(limits, dict):
        return
    import resource
    for key, name in (('cpu_seconds', 'RLIMIT_CPU'), ('address_space_bytes', 'RLIMIT_AS'), ('open_files', 'RLIMIT_NOFILE'), ('processes', 'RLIMIT_NPROC'), ('file_bytes', 'RLIMIT_FSIZE')):
        value = limits.get(key)
        which = getattr(resource, name, None)
        if not isinstance(value, int) or which is None:
            continue
        hard = resource.getrlimit(which)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


def _main():
    out = os.fdopen(3, 'w', encoding='utf-8')
    try:
        os.set_inheritable(3, False)
    except OSError:
        pass
    request = json.loads(sys.stdin.buffer.read().decode('utf-8'))
    sys.stdin.close()
    sys.stdin = open(os.devnull)
    _contain(request.get('limits'))
    try:
        payload = '{"ok":true,"result":' + _dumps(_run(request)) + '}'
    except BaseException as e:
        payload = json.dumps({'ok': False, 'error': _exception(e)})
    # User output first, so that it is all in the pipes when the worker sees the result end.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    out.write(payload)
    out.flush()
    out.close()
    # The worker kills this process once it has the result: first whatever the step left running.
    while True:
        signal.pause()


_main()
`;
