#!/usr/bin/python3
"""A STAND-IN for systemd-logind, for tests only: a private dbus-daemon (started here, killed at
exit) with org.freedesktop.login1 on it, implementing just Manager.Inhibit (a pipe's write end,
as logind does: the lock lasts until every copy of it is closed) and the PrepareForSleep signal.

stdout, one event a line: `bus ADDRESS`, `inhibit N WHAT WHO MODE`, `released N`.
stdin, one command a line: `sleep` emits PrepareForSleep(true), `wake` PrepareForSleep(false).
Ends when stdin closes. Needs Debian's dbus-daemon, python3-dbus and python3-gi.
"""
import ctypes, os, signal, subprocess, sys

import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

PATH, IFACE = "/org/freedesktop/login1", "org.freedesktop.login1.Manager"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Manager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.locks = 0

    @dbus.service.method(IFACE, in_signature="ssss", out_signature="h")
    def Inhibit(self, what, who, why, mode):
        self.locks += 1
        n = self.locks
        r, w = os.pipe()
        fd = dbus.types.UnixFd(w)  # takes its own copy
        os.close(w)
        say(f"inhibit {n} {what} {who} {mode}")

        def closed(source, condition):
            say(f"released {n}")
            os.close(source)
            return False
        GLib.io_add_watch(r, GLib.IO_HUP | GLib.IO_ERR | GLib.IO_IN, closed)
        return fd

    @dbus.service.signal(IFACE, signature="b")
    def PrepareForSleep(self, start):
        pass


def die_with_parent():
    # The test SIGKILLs this stand-in: the daemon must not outlive it (prctl PR_SET_PDEATHSIG).
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def main():
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
    address = daemon.stdout.readline().strip()
    try:
        DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(address)
        name = dbus.service.BusName("org.freedesktop.login1", bus)
        manager = Manager(bus)
        loop = GLib.MainLoop()

        def command(source, condition):
            line = sys.stdin.readline()
            if not line:
                loop.quit()
                return False
            word = line.strip()
            if word == "sleep":
                manager.PrepareForSleep(True)
            elif word == "wake":
                manager.PrepareForSleep(False)
            elif word:
                say(f"unknown command {word}")
            return True
        GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
        say(f"bus {address}")
        loop.run()
        del name
    finally:
        daemon.kill()


if __name__ == "__main__":
    main()
