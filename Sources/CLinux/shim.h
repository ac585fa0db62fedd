#ifndef HOMEBASE_CLINUX_SHIM_H
#define HOMEBASE_CLINUX_SHIM_H
/* Glibc's Swift module is built without _GNU_SOURCE: no epoll, no accept4. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>

extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pipe2(int pipefd[2], int flags);

/* glibc 2.34+, declared only under _GNU_SOURCE: a spawned child closes every descriptor >= from. */
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int hb_errno(void) { return errno; }

/* fork + exec of a child that must not outlive us: PR_SET_PDEATHSIG(SIGKILL) asks the kernel to
 * kill it when the thread that forked it ends, so the caller forks from a thread that lives as
 * long as the process (LeashThread). Between fork and exec only async-signal-safe calls: empty
 * signal mask, default dispositions for the stop signals, stdin/stdout/stderr from the given
 * descriptors (out_fd and err_fd may be the same), everything else closed. Returns the child's pid, or -1 (errno) when fork fails; an
 * exec failure shows as the child exiting 127. */
#include <sys/prctl.h>
#include <sys/syscall.h>
static inline pid_t hb_spawn_leashed(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    struct sigaction dfl;
    dfl.sa_handler = SIG_DFL;
    dfl.sa_flags = 0;
    sigemptyset(&dfl.sa_mask);
    const int stops[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT };
    for (unsigned i = 0; i < sizeof stops / sizeof stops[0]; i++) sigaction(stops[i], &dfl, 0);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
    syscall(SYS_close_range, 3u, ~0u, 0u);
    execve(path, argv, envp);
    _exit(127);
}
#endif
