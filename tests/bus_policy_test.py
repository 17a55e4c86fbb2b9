#!/usr/bin/env python3
"""The system bus policy (config/io.earshot.Pipeline1.conf, installed as is in
share/dbus-1/system.d) on a private dbus-daemon configured as the system bus is (Debian's
system.conf: <type>system</type>, its default policy and limits; its socket, includes and
service launching left out, the policy file included), with earshotd on it as user `earshot`.

Who may do what (docs/dbus.md): root and members of group `earshot` call every method, read
properties, introspect and receive the signals; a user in group `audio` only and an
unprivileged user get AccessDenied and hear nothing; only user `earshot` may own the name.

  bus_policy_test.py EARSHOTD POLICY_FILE

Users and groups are created for the test and removed afterwards (those that existed before are
left alone), so it runs as root; otherwise it is skipped (exit 77) with the reason. Two runs at
once (two build trees' suites) take turns: the user `earshot` one of them created is not removed
under the other.
"""
import fcntl
import grp
import os
import pwd
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_lib  # noqa: E402
from daemon_lib import NAME, OBJECT, PATH_IFACE, TIMEOUT, Lines, check, sox, stop  # noqa: E402

SYSTEM_CONF = "/usr/share/dbus-1/system.conf"
DENIED = "org.freedesktop.DBus.Error.AccessDenied"
# Lines of system.conf that make it the machine's bus: its socket, user, pid file, log, service
# launching and the other packages' policies.
MACHINE_ONLY = re.compile(r"<(user|fork|standard_system_servicedirs|servicehelper|pidfile|syslog|"
                          r"listen|includedir|include)\b[^>]*?(/>|>.*?</\1>)", re.S)


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(77)


def bus_config(tmp, socket_path, policy):
    with open(SYSTEM_CONF) as f:
        text = MACHINE_ONLY.sub("", f.read())
    text = text.replace("</busconfig>", f"  <listen>unix:path={socket_path}</listen>\n"
                        f"  <include>{policy}</include>\n</busconfig>")
    path = os.path.join(tmp, "system.conf")
    with open(path, "w") as f:
        f.write(text)
    return path


class Accounts:
    """The test's users and groups: created when missing, removed afterwards if created here."""

    def __init__(self):
        self.users, self.groups = [], []

    def group(self, name):
        try:
            grp.getgrnam(name)
        except KeyError:
            subprocess.run(["groupadd", "--system", name], check=True)
            self.groups.append(name)

    def user(self, name, groups=(), primary=None):
        try:
            pwd.getpwnam(name)
            return
        except KeyError:
            pass
        command = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        command += ["--gid", primary] if primary else ["--no-user-group"]
        if groups:
            command += ["--groups", ",".join(groups)]
        subprocess.run(command + [name], check=True)
        self.users.append(name)

    def remove(self):
        for name in reversed(self.users):  # members before the group they are in
            subprocess.run(["userdel", name], check=False)
        for name in self.groups:
            subprocess.run(["groupdel", name], check=False, stderr=subprocess.DEVNULL)


def as_user(name):
    """Popen arguments that run a process as `name`, with that user's groups."""
    entry = pwd.getpwnam(name)
    return dict(user=entry.pw_uid, group=entry.pw_gid,
                extra_groups=os.getgrouplist(name, entry.pw_gid))


def busctl(user, env, *args):
    return subprocess.run(["busctl", "--system", *args], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, **as_user(user))


def calls(user, env):
    """What each user tries: method calls, a property, introspection. name -> result."""
    method = ("call", "--", NAME, OBJECT, PATH_IFACE)
    return {
        "GetStats": busctl(user, env, *method, "GetStats"),
        "Mute": busctl(user, env, *method, "Mute"),
        "Unmute": busctl(user, env, *method, "Unmute"),
        "SetProfile": busctl(user, env, *method, "SetProfile", "s", "auto"),
        "SetSensitivity": busctl(user, env, *method, "SetSensitivity", "sd", "computer", "0.5"),
        "get State": busctl(user, env, "get-property", NAME, OBJECT, PATH_IFACE, "State"),
        "introspect": busctl(user, env, "introspect", NAME, OBJECT),
    }


def monitor(user, env):
    """gdbus monitor as `user`: the signals the bus lets that user receive from the daemon."""
    process = subprocess.Popen(["stdbuf", "-oL", "gdbus", "monitor", "--system", "--dest", NAME],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               **as_user(user))
    return process, Lines(process.stdout)


def main():
    earshotd, policy = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.geteuid() != 0:
        skip("needs root: it creates users and groups and runs the daemon as user earshot")
    for tool in ("dbus-daemon", "busctl", "gdbus", "useradd"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            skip(f"{tool} is not installed")
    lock = open("/tmp/earshot_bus_policy_test.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # released when the process ends
    suffix = str(os.getpid())
    member, audio_only, nobody = (f"esh{kind}{suffix}" for kind in ("m", "a", "n"))
    accounts = Accounts()
    daemons = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the daemon, as earshot, reads its recording here
        try:
            accounts.group("earshot")
            accounts.group("audio")
            accounts.user("earshot", groups=["audio"], primary="earshot")
            accounts.user(member, groups=["earshot"])
            accounts.user(audio_only, groups=["audio"])
            accounts.user(nobody)
            socket_path = os.path.join(tmp, "system_bus_socket")
            bus = subprocess.Popen(["dbus-daemon", "--config-file", bus_config(tmp, socket_path,
                                                                               policy),
                                    "--nofork", "--print-address"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            daemons.append(bus)
            address = bus.stdout.readline().strip()
            check("private system bus started", address.startswith("unix:"), address)
            env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
            silence = os.path.join(tmp, "silence.wav")
            sox("-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "600")
            # Only the service user owns the name: root's earshotd is refused it.
            rooted = subprocess.run([earshotd, "--bus", "system", "--input", "wav:" + silence],
                                    env=env, capture_output=True, text=True, timeout=TIMEOUT)
            check("root may not own the name", rooted.returncode == 1 and
                  "cannot publish io.earshot.Pipeline1" in rooted.stderr, rooted.stderr[-300:])
            daemon = subprocess.Popen([earshotd, "--bus", "system", "--input", "wav:" + silence],
                                      env=env, stderr=subprocess.PIPE, text=True,
                                      **as_user("earshot"))
            daemons.append(daemon)
            log = Lines(daemon.stderr)
            check("earshot owns the name", log.expect(lambda l: "ready:" in l), str(log.seen))
            listeners = {user: monitor(user, env) for user in ("root", member, audio_only, nobody)}
            for user, (_, lines) in listeners.items():
                check(f"{user}: monitor started", lines.expect(lambda l: "Monitoring" in l),
                      str(lines.seen))
            for user, allowed in (("root", True), (member, True), (audio_only, False),
                                  (nobody, False)):
                for what, result in calls(user, env).items():
                    if allowed:
                        check(f"{user}: {what} allowed", result.returncode == 0, result.stderr)
                    else:
                        check(f"{user}: {what} denied", result.returncode != 0 and
                              ("Access denied" in result.stderr or DENIED in result.stderr),
                              result.stdout + result.stderr)
            # Signals: two profile changes by root; the second, heard by the member, comes after
            # the first was routed to everyone.
            for profile in ("saver", "auto"):
                busctl("root", env, "call", NAME, OBJECT, PATH_IFACE, "SetProfile", "s", profile)
            for user in ("root", member):
                lines = listeners[user][1]
                heard = [lines.expect(lambda l: "ProfileChanged" in l) for _ in range(2)]
                check(f"{user}: hears the signals", all(heard), str(lines.seen[-5:]))
            for user in (audio_only, nobody):
                process, lines = listeners[user]
                process.terminate()
                lines.expect(lambda l: False, timeout=10)  # to its end
                check(f"{user}: hears no signal",
                      not any("ProfileChanged" in l for l in lines.seen), str(lines.seen[-5:]))
            for process, _ in listeners.values():
                stop(process)
            daemon.send_signal(signal.SIGTERM)
            check("daemon: exit 0", daemon.wait(timeout=TIMEOUT) == 0)
        finally:
            for process in daemons:
                stop(process)
            accounts.remove()
    print(f"bus_policy_test: {daemon_lib.passed} passed, {daemon_lib.failed} failed")
    sys.exit(1 if daemon_lib.failed else 0)


if __name__ == "__main__":
    main()
