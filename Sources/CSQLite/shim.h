#ifndef HOMEBASE_CSQLITE_SHIM_H
#define HOMEBASE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
