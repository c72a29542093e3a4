"""The sandbox's zygote: a pre-started Python that runs untrusted snippets, one at a time, each in a
freshly forked child, so a run costs a fork instead of an interpreter start and no state leaks.

Protocol (one JSON object per line): requests on stdin, replies on stdout; the first line out says
what this zygote can do. The zygote never runs untrusted code itself. Per run it makes one child,
the *runner*: where the kernel allows it, cloned straight into new user, mount, pid and IPC
namespaces (the runner is pid 1 of its pid namespace) with a fresh size-limited tmpfs as the scratch
dir and, when the zygote is root, an unprivileged uid. The runner sets rlimits, drops every
capability it holds in its namespace and executes the code. When it dies, the kernel kills
everything else in its pid namespace, so nothing the code started outlives the run; the zygote,
its parent, learns how it ended from wait4.

Runners are made ahead of time (a *slot*), and, where a run cannot reach another run's processes,
while the previous run executes: a run then starts with a pipe write. A run cannot reach a slot when
(a) each slot has its own uid (the zygote is root: slot k runs as uid GEM_RUN_UID + k, seen inside
its namespace as 65534), so no run may signal, trace or open the /proc files of another, or (b) each
run mounts its own /proc, so it sees no other run's processes. Otherwise the next slot is made only
after a run has ended. A waiting runner is not dumpable: no process of its uid may open its /proc
files.

Without per-run namespaces (the kernel refuses them) the runner is a plain fork in its own session
with its own scratch folder, and strays it leaves are killed after the run.
"""
import atexit
import collections
import ctypes
import gc
import io
import json
import os
import resource
import selectors
import shutil
import signal
import sys
import tempfile
import time
import traceback

CLONE_NEWNS = 0x00020000
CLONE_CHILD_CLEARTID = 0x00200000
CLONE_CHILD_SETTID = 0x01000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
# The uid (and gid) a run sees itself as inside its namespace when the zygote maps it from its own.
INNER_ID = 65534
CPU_LIMIT_EXIT = 128 + signal.SIGXCPU
SYS_GETTID = {"x86_64": 186, "aarch64": 178}.get(os.uname().machine, -1)
# clone(2) by number, and where its child-tid argument goes, per architecture.
SYS_CLONE = {"x86_64": (56, "ctid_4th"), "aarch64": (220, "ctid_5th")}.get(os.uname().machine)

libc = ctypes.CDLL(None, use_errno=True)
# Holds the GIL across the call, as os.fork does across fork().
libc_gil = ctypes.PyDLL(None, use_errno=True)
libc_gil.syscall.restype = ctypes.c_long
libc.pthread_self.restype = ctypes.c_void_p
# The protocol pipes, kept on private fds; every run closes them before the code starts.
PROTO_OUT = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
PROTO_IN = os.fdopen(os.dup(0), "r", encoding="utf-8")
SCRATCH = os.environ.get("GEM_SCRATCH", "/tmp")
# Set when the zygote starts as root: each run drops to an unprivileged uid/gid, so the code can
# signal nothing of ours and the per-user process limit applies (the kernel exempts root from it).
# Slots alive at once get distinct ids: RUN_UID + k and RUN_GID + k for k < RUN_IDS.
RUN_UID = int(os.environ.get("GEM_RUN_UID", "-1"))
RUN_GID = int(os.environ.get("GEM_RUN_GID", "-1"))
RUN_IDS = int(os.environ.get("GEM_RUN_IDS", "1"))
# Without bubblewrap around us, a run also gets its own (empty) network namespace when it can.
RUN_NEWNET = os.environ.get("GEM_RUN_NEWNET") == "1"
# Under bubblewrap the zygote is alone in its pid namespace: anything else left after a run is a stray.
REAP_STRAYS = os.environ.get("GEM_REAP_STRAYS") == "1"
# Profiling (core/bench/sandboxProfile.ts): each process of a run notes when it reaches each step
# (CLOCK_MONOTONIC, microseconds) and the reply carries the notes. The runner appends its own to
# stderr after the program has ended, behind PROFILE_TAG, and the zygote takes them off again.
PROFILE = os.environ.get("GEM_PROFILE") == "1"
PROFILE_TAG = b"\n\0gem-profile "
MARKS = []


def mark(step):
    if PROFILE:
        MARKS.append((step, time.monotonic_ns() // 1000))


# The CPUs the sandbox may use. A process handed work (a runner its request, a test at its fork) is
# put on another CPU than the one handing it over, then let free once it runs: left to the kernel,
# a woken or forked process may queue behind the one that woke it while the other CPU idles
# (docs/performance.md#sandbox: ~8 ms of one idle CPU per code-env reply, seen in a sched trace).
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def place_elsewhere(pid, nth=0):
    """Queues `pid` (asleep, or just forked) on the nth CPU after the caller's own."""
    if len(CPUS) < 2:
        return
    here = libc.sched_getcpu()
    first = CPUS.index(here) + 1 if here in CPUS else 0
    try:
        os.sched_setaffinity(pid, {CPUS[(first + nth) % len(CPUS)]})
    except OSError:
        pass


def let_free():
    """Lets this process run on any of the sandbox's CPUs again (place_elsewhere pinned it)."""
    if len(CPUS) > 1:
        try:
            os.sched_setaffinity(0, CPUS)
        except OSError:
            pass


def write_file(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def drop_privileges(k):
    """Becomes slot k's unprivileged uid/gid (when the zygote is root); for runs without namespaces."""
    if RUN_UID >= 0:
        os.setgroups([])
        os.setresgid(RUN_GID + k, RUN_GID + k, RUN_GID + k)
        os.setresuid(RUN_UID + k, RUN_UID + k, RUN_UID + k)


def find_tid_offset():
    """Where glibc (or musl) keeps the calling thread's id in its thread block: fork() has the kernel
    write the child's id there, and so must our clone, or raise() and abort() in the runner would aim
    at the zygote's thread id. Found by looking for our own id, checked in a forked child."""
    me = libc_gil.syscall(SYS_GETTID)
    block = (ctypes.c_int32 * 1024).from_address(libc.pthread_self())
    found = [i * 4 for i in range(1024) if block[i] == me]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        child = libc_gil.syscall(SYS_GETTID)
        block = (ctypes.c_int32 * 1024).from_address(libc.pthread_self())
        good = [off for off in found if block[off // 4] == child]
        os.write(w, (str(good[0]) if len(good) == 1 else "").encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    text = os.read(r, 64).decode()
    os.close(r)
    return int(text) if text else None


def clone_child(flags):
    """fork() into new namespaces: the child returns 0, the parent its pid."""
    number, where = SYS_CLONE
    ctid = ctypes.c_void_p(libc.pthread_self() + TID_OFFSET if TID_OFFSET is not None else None)
    if TID_OFFSET is not None:
        flags |= CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID
    null = ctypes.c_void_p(None)
    # syscall() reads every argument as a long: pass them at that width.
    first = ctypes.c_long(flags | signal.SIGCHLD)
    args = [first, null, null, ctid, null] if where == "ctid_4th" else [first, null, null, null, ctid]
    ctypes.pythonapi.PyOS_BeforeFork()
    pid = libc_gil.syscall(ctypes.c_long(number), *args)
    if pid == 0:
        ctypes.pythonapi.PyOS_AfterFork_Child()
        return 0
    errno = ctypes.get_errno()
    ctypes.pythonapi.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(errno, f"clone: {os.strerror(errno)}")
    return pid


def write_id_maps(pid, k):
    """The uid and gid maps of a runner's new user namespace (written by us, its parent)."""
    if RUN_UID >= 0:
        # We are root in the parent namespace: any single id may be mapped; inside it reads 65534.
        write_file(f"/proc/{pid}/uid_map", f"{INNER_ID} {RUN_UID + k} 1")
        write_file(f"/proc/{pid}/gid_map", f"{INNER_ID} {RUN_GID + k} 1")
    else:
        # Unprivileged: only our own ids, and no setgroups.
        write_file(f"/proc/{pid}/setgroups", "deny")
        write_file(f"/proc/{pid}/uid_map", f"{os.geteuid()} {os.geteuid()} 1")
        write_file(f"/proc/{pid}/gid_map", f"{os.getegid()} {os.getegid()} 1")


def enter_run(k, isolated, go_r, scratch_mb, try_proc=None):
    """In the new runner: takes its ids and mounts its scratch tmpfs, /dev/shm and /proc (or, without
    namespaces, drops privileges and makes a scratch folder). Returns the workdir and whether /proc
    is the run's own."""
    os.setsid()
    if not isolated:
        drop_privileges(k)
        return tempfile.mkdtemp(prefix="run-", dir=SCRATCH), False
    # The zygote writes our id maps, then closes this pipe.
    os.read(go_r, 1)
    os.close(go_r)
    if RUN_UID >= 0:
        os.setgroups([])
        os.setresgid(INNER_ID, INNER_ID, INNER_ID)
        os.setresuid(INNER_ID, INNER_ID, INNER_ID)
    opts = f"size={scratch_mb}m,nr_inodes=4096,mode=700".encode()
    if libc.mount(b"tmpfs", SCRATCH.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts) != 0:
        raise OSError(ctypes.get_errno(), "mounting the scratch tmpfs failed")
    # Shared memory (multiprocessing's semaphores live there) gets a private tmpfs too.
    if os.path.isdir("/dev/shm"):
        libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch_mb}m,mode=1777".encode())
    # A /proc of the run's own pid namespace, where the kernel allows it: the code sees only its own
    # processes. (Under a root bubblewrap it refuses: that /proc has read-only parts laid over it.
    # Each refusal is a kernel log line, written to the console: slow, so it is tried once.)
    own_proc = False
    if OWN_PROC if try_proc is None else try_proc:
        own_proc = libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) == 0
    return SCRATCH, own_proc


def drop_capabilities():
    """Gives up every capability the runner holds in its own user namespace (it may not unmount its
    scratch tmpfs, mount anything, or change its ids), and any way back to them through exec."""
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "dropping capabilities failed")


def on_cpu_limit(signum, frame):
    os.write(2, b"\nCPU time limit exceeded\n")
    os._exit(CPU_LIMIT_EXIT)


def set_limits(req, max_procs):
    cpu = max(1, int(req["cpu_s"]))
    # The runner is pid 1 of its namespace, so the kernel's SIGXCPU would be ignored without a
    # handler; the hard limit one second later is a SIGKILL that nothing can ignore.
    signal.signal(signal.SIGXCPU, on_cpu_limit)
    limits = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_NPROC, (max_procs, max_procs)),
        (resource.RLIMIT_FSIZE, (req["max_file_bytes"], req["max_file_bytes"])),
        (resource.RLIMIT_NOFILE, (256, 256)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if req["memory_mb"] > 0:
        mem = req["memory_mb"] * 1024 * 1024
        limits.append((resource.RLIMIT_AS, (mem, mem)))
    for kind, value in limits:
        resource.setrlimit(kind, value)


def read_request(fd):
    chunks = []
    while True:
        data = os.read(fd, 1 << 20)
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return json.loads(b"".join(chunks))


def std_streams():
    """The standard streams a plain `python main.py` would have, over fds 0-2: buffered stdin and
    stdout (not line-buffered, as for a pipe), line-buffered stderr; sys.__stdout__ etc. agree."""
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8", errors="backslashreplace"
    )
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8", errors="backslashreplace", line_buffering=True
    )


def exit_status(e):
    """The status an interpreter exits with for SystemExit(e.code); a non-int code is printed."""
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code & 0xFF
    try:
        print(e.code, file=sys.stderr)
    except BaseException:
        pass
    return 1


def print_uncaught(e):
    try:
        # Drop this file's frame: the traceback should show only the code's own lines.
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
    except BaseException:
        pass


def flush_std_streams(code):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            # As an interpreter does when it cannot flush stdout (e.g. a closed pipe): status 120.
            if stream is sys.stdout and code == 0:
                code = 120
    return code


def finalize(namespace, code):
    """What an interpreter does on the way out, in its order: join non-daemon threads, run atexit
    hooks, flush the standard streams, then drop the program's globals (file objects it never closed
    flush as they are freed, after stdout, as there). A SystemExit raised while joining threads sets
    the status, as it would there."""
    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()
    except SystemExit as e:
        code = exit_status(e)
    except BaseException as e:
        print_uncaught(e)
    atexit._run_exitfuncs()
    code = flush_std_streams(code)
    try:
        namespace.clear()
        gc.collect()
    except BaseException:
        pass
    return flush_std_streams(code)


def close_all_but(keep):
    """Closes every descriptor from 3 up except `keep`: a new runner holds no other slot's pipes (a
    waiting runner holding another's request pipe would keep that one waiting forever)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 65536)


def runner(k, isolated, req_r, out_w, err_w, st_w, go_r):
    """Pid 1 of the run's namespaces (or a plain child without namespaces): sets itself up, waits for
    its request, then runs the code and ends the way the interpreter would have ended it (or, for a
    request of several tests, runs each in a child of its own: run_each)."""
    MARKS.clear()
    mark("runner forked")
    try:
        close_all_but({req_r, out_w, err_w, st_w} | ({go_r} if isolated else set()))
        workdir, _ = enter_run(k, isolated, go_r, SCRATCH_MB)
        # Set after the uid change, which clears it.
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        # While it waits, no process of its uid may open its /proc files (memory, descriptors, root).
        libc.prctl(PR_SET_DUMPABLE, 0)
        if not isolated:
            os.write(st_w, f"workdir:{workdir}\n".encode())
    except BaseException as e:
        try:
            os.write(st_w, f"error:{type(e).__name__}: {e}\n".encode())
        finally:
            os._exit(1)
    os.close(st_w)
    mark("runner ready (namespaces, scratch, /proc)")
    req = read_request(req_r)
    let_free()
    mark("runner got request")
    if "tests" in req:
        try:
            run_each(req, out_w, err_w, workdir, isolated)
        except BaseException as e:
            # Said on our stderr, which the zygote puts in its reply (a fork refused, say).
            os.write(2, f"{type(e).__name__}: {e}\n".encode(errors="replace"))
        finally:
            # Never back into the zygote's code, whatever happened.
            os._exit(1)
    execute(req, req.get("stdin"), out_w, err_w, workdir, isolated, req["max_procs"])


def execute(req, stdin, out_w, err_w, workdir, drop_caps, max_procs, compiled=None):
    """Turns this process into the program: stdin and streams set, everything else closed, limits
    set, capabilities dropped, the code run and the process ended the way the interpreter would end
    it. `compiled`: the code, compiled already (by a runner, once for all its tests). Never returns."""
    # The code may read its own /proc files, as a plain process can.
    libc.prctl(PR_SET_DUMPABLE, 1)
    os.chdir(workdir)
    os.environ["HOME"] = workdir
    os.environ["TMPDIR"] = workdir
    # Stdin is a file (the program may seek it or read it whole), kept in memory, not in the scratch.
    in_fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
    view = memoryview((stdin or "").encode("utf-8"))
    while view:
        view = view[os.write(in_fd, view):]
    os.lseek(in_fd, 0, os.SEEK_SET)
    os.dup2(in_fd, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    # Nothing of the zygote's (the protocol pipes above all) stays reachable from the code.
    os.closerange(3, 65536)
    std_streams()
    mark("stdio set (stdin, streams, fds closed)")
    sys.argv = ["main.py"]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # Exit hooks the zygote's own imports registered are not the program's.
    atexit._clear()
    set_limits(req, max_procs)
    if drop_caps:
        drop_capabilities()
    mark("limits set, capabilities dropped")
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    code = 0
    try:
        if compiled is None:
            compiled = compile(req["code"], "main.py", "exec")
        mark("code compiled")
        exec(compiled, namespace)
    except SystemExit as e:
        code = exit_status(e)
    except BaseException as e:
        print_uncaught(e)
        code = 1
    mark("code ran")
    code = finalize(namespace, code)
    if PROFILE:
        mark("interpreter finalized")
        os.write(2, PROFILE_TAG + json.dumps(MARKS).encode() + b"\n")
    os._exit(code)


def failed_on_its_own(result):
    """A test run that failed without any expected output to compare: it crashed, exited non-zero or
    was stopped. (A wrong output only Node can see: the expected outputs never enter the sandbox.)"""
    return result["killed"] is not None or result["signal"] is not None or result["exit_code"] != 0


def run_each(req, report_w, err_w, workdir, isolated):
    """The runner's part in running one program on several stdins (a code env's tests): each test is
    a child forked from here, in this run's namespaces, with its own folder, stdin, streams, limits
    and deadline, `parallel` at a time, in order; with `stop_on_failure`, no test starts after one
    failed on its own. The tests share nothing another reply could reach, and hold nothing their
    program could not compute itself. Writes the results of the tests that ran as one JSON list to
    `report_w` and exits."""
    # Children may signal pid 1 only with the signals it handles: it handles none.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Our own errors go where the zygote reads them; the zygote's protocol stdout is let go.
    os.dup2(err_w, 1)
    os.dup2(err_w, 2)
    if isolated:
        drop_capabilities()
    tests = req["tests"]
    parallel = tests_in_flight(req)
    # The process limit counts every test in flight (they share this run's uid).
    max_procs = req["max_procs"] * parallel + 1
    compiled = compile_once(req["code"])
    sel = selectors.DefaultSelector()
    bare = single_threaded()
    results, running, started, stopping = [None] * len(tests), [], 0, False
    while running or (started < len(tests) and not stopping):
        while started < len(tests) and not stopping and len(running) < parallel:
            running.append(start_test(req, compiled, tests[started], started, workdir, max_procs, sel, bare))
            started += 1
        step(sel, running)
        for w in [w for w in running if w.done]:
            running.remove(w)
            w.reap()
            results[w.index] = w.result()
            remove_folder(w.folder)
            stopping = stopping or (req.get("stop_on_failure") and failed_on_its_own(results[w.index]))
        reap_orphans({w.pid for w in running})
    view = memoryview(json.dumps(results[:started]).encode())
    while view:
        view = view[os.write(report_w, view):]
    # Closed before the exit: the zygote answers at this end of the report, not after our teardown.
    os.close(report_w)
    os._exit(0)


# Code up to this size is compiled by the runner, once for all its tests: its compiler's memory is
# then bounded without the tests' limits (a reply is a few kB; longer code each test compiles).
COMPILE_ONCE_MAX_CHARS = 1 << 16


def compile_once(code):
    """The code compiled, or None (too long, or it does not compile: each test then fails on it as
    its interpreter would, with the interpreter's own message)."""
    if len(code) > COMPILE_ONCE_MAX_CHARS:
        return None
    try:
        return compile(code, "main.py", "exec")
    except BaseException:
        return None


def fork_test(bare):
    """fork() for a runner's test. `bare` (the runner has no other thread): without the interpreter's
    at-fork hooks but random's reseed (each test draws its own numbers, as a fresh interpreter
    would). The hooks repair what other threads held at the fork (the GIL's and import lock's
    mutexes, threading's registry): with no other thread there is nothing to repair, and they cost
    each test ~0.6 ms of copy-on-write faults (threading's alone writes to ~150 pages)."""
    if not bare:
        return os.fork()
    pid = libc_gil.fork()
    if pid < 0:
        raise OSError(ctypes.get_errno(), f"fork: {os.strerror(ctypes.get_errno())}")
    if pid == 0:
        rng = sys.modules.get("random")
        if rng is not None:
            rng._inst.seed()
    return pid


def single_threaded():
    """Whether this process has one thread, counting those no Python code started."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def remove_folder(path):
    """A test's folder goes when it ends (most are left empty: one rmdir)."""
    try:
        os.rmdir(path)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


def start_test(req, compiled, test, index, workdir, max_procs, sel, bare):
    """Forks the child that runs `req`'s code on one test's stdin; returns it, watched."""
    folder = os.path.join(workdir, f"test-{index}")
    os.mkdir(folder, 0o700)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    mark("runner forks a test")
    pid = fork_test(bare)
    if pid == 0:
        del MARKS[:-1]
        mark("test forked")
        try:
            # Its own process group: what it leaves running is killed when it ends.
            os.setsid()
            # The runner dropped every capability: its children start without any.
            let_free()
            execute(req, test.get("stdin"), out_w, err_w, folder, False, max_procs, compiled)
        finally:
            os._exit(1)
    place_elsewhere(pid, index)
    os.close(out_w)
    os.close(err_w)
    limits = dict(req, stdout_keep_bytes=test.get("stdout_keep_bytes"), stdout_kill_bytes=test.get("stdout_kill_bytes"))
    w = Watched(pid, out_r, err_r, time.monotonic(), limits, sel)
    w.index, w.folder = index, folder
    return w


def reap_orphans(tests):
    """Collects what the tests left behind that died (pid 1 inherits it, and a zombie still counts
    against the process limit). The exit of a test still watched (pids in `tests`) is kept for it."""
    try:
        while True:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if not pid:
                return
            if pid in tests:
                EXITED[pid] = (pid, status, usage)
    except ChildProcessError:
        pass


class Slot:
    """A runner made (its namespaces and scratch set up) ahead of time, waiting for a request, so a
    run starts without that cost. `k` picks the slot's uid (see write_id_maps)."""

    def __init__(self, k):
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        st_r, st_w = os.pipe()
        req_r, req_w = os.pipe()
        go_r, go_w = os.pipe() if RUN_NAMESPACES else (None, None)
        PROTO_OUT.flush()
        pid = clone_child(RUN_FLAGS) if RUN_NAMESPACES else os.fork()
        if pid == 0:
            runner(k, RUN_NAMESPACES, req_r, out_w, err_w, st_w, go_r)
        for fd in (out_w, err_w, st_w, req_r, go_r):
            if fd is not None:
                os.close(fd)
        self.pid, self.k, self.out_r, self.err_r, self.st_r, self.req_w = pid, k, out_r, err_r, st_r, req_w
        if go_w is not None:
            try:
                write_id_maps(pid, k)
            except OSError:
                os.close(go_w)
                self.discard()
                raise
            # Closing it lets the runner go on.
            os.close(go_w)

    def send(self, req):
        """Hands the request to the waiting runner; False if it is gone."""
        view = memoryview(json.dumps(req).encode())
        # Woken where we run, the runner would wait for this process's next work (making the next
        # slot) to end; it starts on another CPU.
        place_elsewhere(self.pid)
        try:
            while view:
                view = view[os.write(self.req_w, view):]
            return True
        except BrokenPipeError:
            return False
        finally:
            os.close(self.req_w)
            self.req_w = None

    def discard(self):
        """Kills the slot; returns what its runner reported (an error, when it failed to start)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(self.pid, 0)
        os.set_blocking(self.st_r, False)
        try:
            report = os.read(self.st_r, 4096).decode(errors="replace")
        except OSError:
            report = ""
        for fd in (self.out_r, self.err_r, self.st_r, self.req_w):
            if fd is not None:
                os.close(fd)
        return report


class Capture:
    """Keeps the head of a stream up to `keep` bytes and counts the rest."""

    def __init__(self, keep):
        self.keep = keep
        self.parts = []
        self.kept = 0
        self.total = 0

    def add(self, data):
        self.total += len(data)
        room = self.keep - self.kept
        if room > 0:
            self.parts.append(data[:room])
            self.kept += min(room, len(data))

    def text(self):
        return b"".join(self.parts).decode("utf-8", errors="replace")


def cpu_us(usage):
    return int((usage.ru_utime + usage.ru_stime) * 1_000_000)


def parse_status(text):
    """What a runner reported before its request: `workdir:` (no namespaces) or `error:`."""
    out = {"workdir": None, "error": None}
    for line in text.splitlines():
        kind, _, rest = line.strip().partition(":")
        if kind in out:
            out[kind] = rest
    return out


def clear_folder(path):
    for name in os.listdir(path):
        p = os.path.join(path, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


def reap_strays(limit_s=2.0):
    """Kills whatever a run left in our pid namespace and waits until it is gone, so every run
    starts alone (a dying namespace takes a moment to empty)."""
    me = os.getpid()
    deadline = time.monotonic() + limit_s
    while True:
        strays = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me)]
        if not strays or time.monotonic() > deadline:
            return
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        # Orphans come to us (a subreaper); no slot exists now, so every child left is a stray.
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.001)


def free_slot_id():
    """A uid index no live slot has (the prepared ones and the running one)."""
    if RUN_UID < 0:
        return 0
    used = {s.k for s in PREPARED} | RUNNING
    for k in range(RUN_IDS):
        if k not in used:
            return k
    raise OSError("no free run uid (GEM_RUN_IDS is too small)")


def take_slot(req):
    """The oldest prepared slot (or a new one) with `req` sent to it."""
    report = ""
    for attempt in range(2):
        slot = PREPARED.popleft() if PREPARED and attempt == 0 else Slot(free_slot_id())
        if slot.send(req):
            return slot
        report = slot.discard()
    why = parse_status(report)["error"] or "it died before it started"
    raise OSError(f"could not start the run: {why}")


def prepare():
    """Tops the prepared slots up (a slot that fails to start is retried at the next run)."""
    while len(PREPARED) < PREPARE_DEPTH:
        try:
            PREPARED.append(Slot(free_slot_id()))
        except OSError:
            return


def run(req):
    """Runs one request; returns its reply and what is left to do once the reply is out (a run of
    several tests is answered when its report is complete, and its runner is reaped after that)."""
    started = time.monotonic()
    # Worked out before a slot is taken: a malformed request fails here and costs no runner.
    each = each_limits(req) if "tests" in req else None
    slot = take_slot(req)
    mark("zygote sent the request")
    RUNNING.add(slot.k)
    later = None
    try:
        if each is not None:
            reply, later = watch_each(req, each, slot, started)
        else:
            reply = watch(req, slot, started)
        return reply, later
    finally:
        # The slot's uid stays taken until its runner is reaped (by `later`, when there is one).
        if later is None:
            RUNNING.discard(slot.k)


def read_ready(fd):
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 65536).decode(errors="replace")
    except OSError:
        return ""


class Watched:
    """A process whose stdout and stderr are collected until it has exited and both streams are
    closed, or until it must be stopped: its deadline passed, or a stream went past its cap. Each
    stream has its own cap: a program that floods stdout is stopped at stdout's cap, and chatty
    stderr cannot cost a program whose stdout is right its verdict."""

    def __init__(self, pid, out_r, err_r, started, req, sel):
        self.pid, self.out_r, self.err_r, self.started, self.sel = pid, out_r, err_r, started, sel
        self.deadline = started + req["timeout_ms"] / 1000.0
        self.out = Capture(req.get("stdout_keep_bytes") or req["max_output_bytes"])
        self.err = Capture(req["max_output_bytes"])
        self.kill_at = {out_r: req.get("stdout_kill_bytes") or req["kill_output_bytes"], err_r: req["kill_output_bytes"]}
        self.killed = None
        self.status = self.usage = None
        # The exit shows as a readable pidfd (the code may close its streams and go on).
        self.pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
        self.waiting = {out_r, err_r} | ({self.pidfd} if self.pidfd is not None else set())
        for fd in self.waiting:
            sel.register(fd, selectors.EVENT_READ, self)

    @property
    def done(self):
        return not self.waiting

    def on_ready(self, fd):
        if fd == self.pidfd:
            self.unwatch(fd)
            mark("zygote saw the runner exit")
            # Whatever it left running in its process group goes with it (and lets go of its streams).
            kill_group(self.pid)
            return
        data = os.read(fd, 65536)
        if not data:
            self.unwatch(fd)
            return
        capture = self.out if fd == self.out_r else self.err
        capture.add(data)
        if capture.total > self.kill_at[fd]:
            self.stop("output_limit")

    def unwatch(self, fd):
        self.sel.unregister(fd)
        self.waiting.discard(fd)

    def stop(self, why):
        self.killed = self.killed or why
        for fd in list(self.waiting):
            self.unwatch(fd)
        kill_group(self.pid)

    def reap(self):
        """Waits for the process to be gone (it has exited or was killed); closes its streams."""
        if self.pidfd is not None:
            os.close(self.pidfd)
        while self.usage is None:
            # Without a pidfd: poll until it is gone, or the deadline says stop it.
            flags = 0 if self.pidfd is not None or self.killed else os.WNOHANG
            done, status, usage = EXITED.pop(self.pid, None) or os.wait4(self.pid, flags)
            if done:
                self.status, self.usage = status, usage
            else:
                if time.monotonic() >= self.deadline:
                    self.stop("timeout")
                time.sleep(0.0005)
        self.wall_ms = (time.monotonic() - self.started) * 1000.0
        os.close(self.out_r)
        os.close(self.err_r)

    def result(self):
        signalled = os.WIFSIGNALED(self.status)
        exit_code = None if signalled else os.WEXITSTATUS(self.status)
        killed = self.killed
        return {
            "stdout": self.out.text(),
            "stderr": self.err.text(),
            "stdout_bytes": self.out.total,
            "stderr_bytes": self.err.total,
            "exit_code": None if killed else exit_code,
            "signal": os.WTERMSIG(self.status) if signalled and not killed else None,
            "cpu_limit": exit_code == CPU_LIMIT_EXIT and not killed,
            "cpu_ms": int(cpu_us(self.usage) / 1000),
            "killed": killed,
            "flooded": ("stdout" if self.out.total > self.kill_at[self.out_r] else "stderr") if killed == "output_limit" else None,
            "wall_ms": self.wall_ms,
        }


def kill_group(pid):
    """SIGKILLs the process and its process group (each run and test leads its own)."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


# Exits wait4(-1) collected before their watcher asked: pid -> (pid, status, usage).
EXITED = {}


def step(sel, watched):
    """One wait for the watched processes: reads what is ready, stops the ones past their deadline."""
    left = min(w.deadline for w in watched) - time.monotonic()
    if left > 0:
        for key, _ in sel.select(left):
            if not key.data.done:
                key.data.on_ready(key.fd)
    now = time.monotonic()
    for w in watched:
        if not w.done and now >= w.deadline:
            w.stop("timeout")


def tests_in_flight(req):
    """How many of a request's tests run at once: its `parallel`, at least 1, at most its tests."""
    return max(1, min(int(req.get("parallel") or 1), len(req["tests"])))


def batch_timeout_ms(req):
    """How long a run of several tests may take in all: each wave of `parallel` tests its timeout,
    one wave more for the waves not lining up, and a margin for the forks."""
    return (-(-len(req["tests"]) // tests_in_flight(req)) + 1) * req["timeout_ms"] + 2000


def watch(req, slot, started):
    """Collects the run's output until its runner has exited (or it must be stopped)."""
    if AHEAD:
        # The next run's runner and namespaces get made while this one executes.
        prepare()
        mark("zygote made the next slot")
    sel = selectors.DefaultSelector()
    w = Watched(slot.pid, slot.out_r, slot.err_r, started, req, sel)
    report = finish(w, sel, slot)
    profile = None
    if PROFILE:
        mark("zygote has the reply")
        profile = profile_report(w.err, w.usage)
    return {"id": req["id"], **w.result(), "error": report["error"], "profile": profile}


def finish(w, sel, slot):
    """Waits until the runner is gone, then cleans up after it; returns what it reported."""
    while not w.done:
        step(sel, [w])
    sel.close()
    w.reap()
    report = parse_status(read_ready(slot.st_r))
    os.close(slot.st_r)
    if report["workdir"]:
        # Without per-run namespaces the scratch folder is shared: empty it, whatever the code left.
        clear_folder(SCRATCH)
    if REAP_STRAYS and not RUN_NAMESPACES:
        reap_strays()
    return report


def each_limits(req):
    """How the zygote watches the runner of several tests: the whole run's timeout, and room on its
    stdout for the report (every test's kept output, JSON-escaped at worst)."""
    report_cap = sum((t.get("stdout_keep_bytes") or req["max_output_bytes"]) + req["max_output_bytes"] for t in req["tests"])
    limits = dict(req, timeout_ms=batch_timeout_ms(req), stdout_keep_bytes=6 * report_cap + (1 << 20))
    limits["stdout_kill_bytes"] = limits["stdout_keep_bytes"]
    return limits


def watch_each(req, limits, slot, started):
    """Collects the report of a run of several tests (its runner, our code, writes every test's
    result, each already capped, to its stdout). The reply goes out as soon as the report is whole;
    the runner's exit (the teardown of its namespaces) is waited for after that, while Node works,
    and before the slot's uid is free again."""
    if AHEAD:
        prepare()
    sel = selectors.DefaultSelector()
    w = Watched(slot.pid, slot.out_r, slot.err_r, started, limits, sel)
    while w.out_r in w.waiting:
        step(sel, [w])
    tests = parse_each_report(w.out.text())
    wall_ms = (time.monotonic() - started) * 1000.0
    if tests is not None:

        def later():
            try:
                finish(w, sel, slot)
            finally:
                RUNNING.discard(slot.k)

        return {"id": req["id"], "tests": tests, "error": None, "wall_ms": wall_ms}, later
    report = finish(w, sel, slot)
    return {"id": req["id"], "tests": [], "error": report["error"] or each_failure(w), "wall_ms": wall_ms}, None


def parse_each_report(text):
    """The list of test results a runner wrote, or None when it wrote no whole report."""
    try:
        tests = json.loads(text)
    except ValueError:
        return None
    return tests if isinstance(tests, list) else None


def each_failure(w):
    """Why a run of several tests gave no report: its runner failed or was stopped."""
    r = w.result()
    why = r["killed"] or (f"signal {r['signal']}" if r["signal"] is not None else f"exit code {r['exit_code']}")
    return f"the tests' runner ended early ({why}): {r['stderr'][-500:]}"


def profile_report(err, usage):
    """The marks of the zygote and the runner (taken off the end of stderr), the runner's CPU time,
    and the CPU time the zygote and its reaped children have used so far."""
    runner = []
    joined = b"".join(err.parts)
    at = joined.rfind(PROFILE_TAG)
    if at >= 0:
        runner = json.loads(joined[at + len(PROFILE_TAG):])
        err.parts, err.kept = [joined[:at]], at
        err.total -= len(joined) - at
    cpu = {
        "runner": cpu_us(usage),
        "zygote": cpu_us(resource.getrusage(resource.RUSAGE_SELF)),
        "zygote_children": cpu_us(resource.getrusage(resource.RUSAGE_CHILDREN)),
    }
    return {"marks": MARKS + runner, "cpu_us": cpu}


def probe_namespaces():
    """Whether a run can get its own namespaces here, and whether it can then mount a /proc of its
    own (so it sees no other process); tried once, in a throwaway runner."""
    if SYS_CLONE is None:
        return False, False
    go_r, go_w = os.pipe()
    try:
        pid = clone_child(RUN_FLAGS)
    except OSError:
        return False, False
    if pid == 0:
        try:
            os.close(go_w)
            _, own_proc = enter_run(0, True, go_r, 1, try_proc=True)
            os._exit(0 if own_proc else 5)
        except BaseException:
            os._exit(4)
    os.close(go_r)
    try:
        write_id_maps(pid, 0)
    except OSError:
        os.kill(pid, signal.SIGKILL)
    os.close(go_w)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return code in (0, 5), code == 0


RUN_FLAGS = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | (CLONE_NEWNET if RUN_NEWNET else 0)
RUN_NAMESPACES = False
# Whether a run can mount a /proc of its own (found by probe_namespaces).
OWN_PROC = False
TID_OFFSET = None
# Whether slots are made while a run executes (see the module's docstring), and how many wait ready.
AHEAD = False
PREPARE_DEPTH = 1
PREPARED = collections.deque()
# The slot id of the run in progress.
RUNNING = set()
SCRATCH_MB = int(os.environ.get("GEM_SCRATCH_MB", "64"))


def main():
    global RUN_NAMESPACES, AHEAD, PREPARE_DEPTH, TID_OFFSET, OWN_PROC
    # A runner that died before reading its request must not take the zygote with it.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    # Strays of runs without namespaces come to us, so reap_strays can collect them.
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # Pay for common imports once here; every forked run then finds them already loaded.
    for name in [m for m in os.environ.get("GEM_PRELOAD", "").split(",") if m]:
        try:
            __import__(name)
        except Exception:
            pass
    # The first compile() in a process may set up the interpreter's AST types (~4 ms with a venv's
    # interpreter, ~0.3 ms with the system one under bubblewrap): done here once, no run pays it.
    compile("pass", "main.py", "exec")
    # What the zygote holds goes to the permanent generation: a run's collection on its way out then
    # scans only the program's own objects (and forked pages stay shared, not copied by the GC).
    gc.freeze()
    if SYS_CLONE is not None:
        TID_OFFSET = find_tid_offset()
    RUN_NAMESPACES, OWN_PROC = probe_namespaces()
    depth = max(1, int(os.environ.get("GEM_PREPARE_DEPTH", "1")))
    # Slots apart by uid need one id per prepared slot and the running one.
    own_uids = RUN_UID >= 0 and RUN_IDS >= depth + 1
    AHEAD = RUN_NAMESPACES and (own_uids or OWN_PROC)
    PREPARE_DEPTH = depth if AHEAD else 1
    hello = {"ready": True, "python": sys.version.split()[0], "run_namespaces": RUN_NAMESPACES, "prepared_ahead": AHEAD}
    print(json.dumps(hello), file=PROTO_OUT)
    prepare()
    for raw in PROTO_IN:
        raw = raw.strip()
        if not raw:
            continue
        req = None
        MARKS.clear()
        mark("zygote got the request")
        later = None
        try:
            req = json.loads(raw)
            reply, later = run(req)
        except Exception as e:
            rid = req.get("id") if isinstance(req, dict) else None
            reply = {"id": rid, "error": f"zygote: {type(e).__name__}: {e}"}
        print(json.dumps(reply), file=PROTO_OUT)
        # Answer first, then finish the run and get the next run's runner and namespaces ready while
        # Node works.
        try:
            if later is not None:
                later()
        except Exception as e:
            print(f"zygote: finishing run {reply.get('id')}: {type(e).__name__}: {e}", file=sys.stderr)
        prepare()


if __name__ == "__main__":
    main()
