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

/* glibc 2.34+, declared only under _GNU_SOURCE: a spawned child closes every descriptor >= from. */
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int hb_errno(void) { return errno; }
#endif
