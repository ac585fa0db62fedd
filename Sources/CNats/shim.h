#ifndef HOMEBASE_CNATS_SHIM_H
#define HOMEBASE_CNATS_SHIM_H
#include <nats/nats.h>
#endif
