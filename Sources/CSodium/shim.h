#ifndef HOMEBASE_CSODIUM_SHIM_H
#define HOMEBASE_CSODIUM_SHIM_H
#include <sodium.h>
#endif
