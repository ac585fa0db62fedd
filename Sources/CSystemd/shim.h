#ifndef HOMEBASE_CSYSTEMD_SHIM_H
#define HOMEBASE_CSYSTEMD_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <systemd/sd-bus.h>

// sd-bus's message calls are variadic, which Swift cannot call: these wrap the few we need.

/// A bus client connected to `address` (a D-Bus address, e.g. unix:path=/run/dbus/system_bus_socket).
static inline int homebase_bus_open(const char *address, sd_bus **out) {
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r < 0) return r;
    if ((r = sd_bus_set_address(bus, address)) < 0 || (r = sd_bus_set_bus_client(bus, 1)) < 0
        || (r = sd_bus_negotiate_fds(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0) {
        sd_bus_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

/// org.freedesktop.login1.Manager.Inhibit(what, who, why, mode): the lock's fd (our own copy).
static inline int homebase_inhibit(sd_bus *bus, const char *what, const char *who, const char *why,
                                   const char *mode, int *fd_out, sd_bus_error *error) {
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                               "org.freedesktop.login1.Manager", "Inhibit", error, &reply,
                               "ssss", what, who, why, mode);
    if (r < 0) return r;
    int fd = -1;
    r = sd_bus_message_read(reply, "h", &fd);
    if (r >= 0) {
        *fd_out = fcntl(fd, F_DUPFD_CLOEXEC, 3);  // the reply owns fd and closes it with itself
        if (*fd_out < 0) r = -errno;
    }
    sd_bus_message_unref(reply);
    return r;
}

/// The one boolean argument of a signal (PrepareForSleep's `start`).
static inline int homebase_read_bool(sd_bus_message *m, int *out) {
    return sd_bus_message_read(m, "b", out);
}
#endif
