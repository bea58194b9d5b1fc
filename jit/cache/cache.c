/* cache.c: the kernel cache (see cache.h). */
#include "jit/cache/cache.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/lock.h"
#include "jit/cache/cache_files.h"
#include "jit/cpu/perf_map.h"
#include "weft/weft.h"

#define FILE_MAGIC "WEFT-KERNEL-CACHE-2\n"

/* ------------------------------------------------------------- hashing */

/* BLAKE3, from LLVM's C API: keys and the entries' checksums are a
 * cryptographic hash, so no two inputs share a key by accident and no
 * damaged entry passes for a whole one. */
void weft__hash_init(weft_hasher *h) { llvm_blake3_hasher_init(&h->state); }

void weft__hash_bytes(weft_hasher *h, const void *data, size_t size) {
  llvm_blake3_hasher_update(&h->state, data, size);
}

void weft__hash_string(weft_hasher *h, const char *s) {
  uint64_t n = s ? strlen(s) : 0;
  weft__hash_bytes(h, &n, sizeof n);
  if (n) weft__hash_bytes(h, s, n);
}

void weft__hash_digest(const weft_hasher *h, unsigned char *out, size_t size) {
  llvm_blake3_hasher_finalize(&h->state, out, size);
}

void weft__hash_key(const weft_hasher *h, weft_cache_key *key) {
  unsigned char out[16];
  weft__hash_digest(h, out, sizeof out);
  for (size_t i = 0; i < sizeof out; i++)
    snprintf(key->hex + 2 * i, 3, "%02x", out[i]);
}

void weft__cache_key_make(const char *identity, const char *kind,
                          const void *input, size_t size, const char *options,
                          weft_cache_key *key) {
  weft_hasher h;
  weft__hash_init(&h);
  weft__hash_string(&h, identity);
  weft__hash_string(&h, kind);
  weft__hash_string(&h, options);
  weft__hash_bytes(&h, &size, sizeof size);
  weft__hash_bytes(&h, input, size);
  weft__hash_key(&h, key);
}

/* --------------------------------------------------------- file stamps */

char *weft__cache_stamp(const char *deps) {
  static atomic_uint serial;
  size_t cap = 64, used = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  out[0] = 0;
  for (const char *p = deps ? deps : ""; *p;) {
    size_t len = strcspn(p, "\n");
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%.*s", (int)len, p);
    p += len + (p[len] == '\n');
    if (!len) continue;
    char line[4200];
    int n;
    if (len < sizeof path && !stat(path, &st))
      n = snprintf(line, sizeof line, "%lld %lld %ld %s\n",
                   (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                   st.st_mtim.tv_nsec, path);
    else /* no file to compare with later: unique, matches nothing */
      n = snprintf(line, sizeof line, "! %u\n", atomic_fetch_add(&serial, 1));
    while (used + (size_t)n + 1 > cap) cap *= 2;
    char *grown = realloc(out, cap);
    if (!grown) {
      free(out);
      return NULL;
    }
    out = grown;
    memcpy(out + used, line, (size_t)n + 1);
    used += (size_t)n;
  }
  return out;
}

static int storable(const char *stamps) { return !strstr(stamps, "! "); }

void weft__cache_symbol_prefix(const weft_cache_key *key, const char *stamps,
                               char out[48]) {
  weft_hasher h;
  weft__hash_init(&h);
  weft__hash_string(&h, key->hex);
  weft__hash_string(&h, stamps);
  weft_cache_key id;
  weft__hash_key(&h, &id);
  snprintf(out, 48, "weft.%s", id.hex);
}

/* Whether every file is as it was stamped. */
static int stamps_hold(const char *stamps) {
  for (const char *p = stamps; *p;) {
    long long size, sec;
    long nsec;
    int consumed = 0;
    if (sscanf(p, "%lld %lld %ld %n", &size, &sec, &nsec, &consumed) < 3)
      return 0;
    const char *path = p + consumed;
    size_t len = strcspn(path, "\n");
    char name[4096];
    if (len >= sizeof name) return 0;
    snprintf(name, sizeof name, "%.*s", (int)len, path);
    struct stat st;
    if (stat(name, &st) || st.st_size != size || st.st_mtim.tv_sec != sec ||
        st.st_mtim.tv_nsec != nsec)
      return 0;
    p = path + len + (path[len] == '\n');
  }
  return 1;
}

/* ------------------------------------------------------ process's table */

static weft_lock table_lock = WEFT_LOCK_INITIALIZER;
static weft_cached *table;
/* Entries whose last reference went stay loaded in the table, the
 * kept_idle most recently released (WEFT_CACHE_KEEP): a program built,
 * released and built again (the CTS's image tests build one source
 * hundreds of times) finds its code without a compile, or without
 * reading and linking the disk's copy. idle counts them; released_at
 * orders them (table_lock). */
static unsigned kept_idle = WEFT_DEFAULT_CACHE_KEEP, idle;
static uint64_t releases;
/* In a build helper (weft__cache_remember), the entry its build made or
 * found, with a reference (table_lock). */
static int remembering;
static weft_cached *remembered;

void weft__cache_set_dir(const char *dir) {
  /* Without a build ID nothing tells this Weft's cached code from
   * another's: keep the cache in memory. */
  weft__cache_folder_set(weft__build_id() ? dir : NULL);
}

static void entry_free(weft_cached *c) {
  weft__orc_remove(c->code);
  free(c->object);
  free(c->ptx);
  free(c->descs);
  free(c->stamps);
  free(c->log);
  free(c);
}

/* A loaded entry for key whose files are still as stamped (table_lock
 * held). Entries whose headers changed stay in the table, unused, until
 * the binaries that still run them are gone. */
static weft_cached *table_get(const weft_cache_key *key) {
  assert(weft__lock_held(&table_lock));
  for (weft_cached *c = table; c; c = c->next)
    if (!strcmp(c->key.hex, key->hex) && stamps_hold(c->stamps)) return c;
  return NULL;
}

static void table_remove(weft_cached *gone) {
  assert(weft__lock_held(&table_lock));
  for (weft_cached **link = &table; *link; link = &(*link)->next)
    if (*link == gone) {
      *link = gone->next;
      return;
    }
}

/* A reference to c, found in the table (table_lock held): an idle entry
 * is in use again. */
static void take(weft_cached *c) {
  assert(weft__lock_held(&table_lock));
  if (atomic_fetch_add(&c->refs, 1) == 0) {
    assert(idle > 0);
    idle--;
  }
}

/* Drops a reference (table_lock held). When it was c's last, c stays
 * idle; the entry that is then one idle too many (the least recently
 * released, c itself when its headers changed) leaves the table and is
 * returned, for the caller to free outside the lock. */
static weft_cached *drop(weft_cached *c) {
  assert(weft__lock_held(&table_lock));
  if (atomic_fetch_sub(&c->refs, 1) != 1) return NULL;
  c->released_at = ++releases;
  idle++;
  if (!stamps_hold(c->stamps)) {
    idle--;
    table_remove(c);
    return c;
  }
  if (idle <= kept_idle) return NULL;
  weft_cached *oldest = NULL;
  for (weft_cached *e = table; e; e = e->next)
    if (atomic_load(&e->refs) == 0 &&
        (!oldest || e->released_at < oldest->released_at))
      oldest = e;
  assert(oldest);
  idle--;
  table_remove(oldest);
  return oldest;
}

void weft__cache_set_kept(unsigned n) {
  weft__lock(&table_lock);
  kept_idle = n;
  weft__unlock(&table_lock);
}

void weft__cache_drop_idle(void) {
  for (;;) {
    weft__lock(&table_lock);
    weft_cached *e = table;
    while (e && atomic_load(&e->refs) != 0) e = e->next;
    if (e) {
      idle--;
      table_remove(e);
    }
    weft__unlock(&table_lock);
    if (!e) return;
    entry_free(e);
  }
}

void weft__cache_release(weft_cached *c) {
  if (!c) return;
  weft__lock(&table_lock);
  weft_cached *gone = drop(c);
  weft__unlock(&table_lock);
  if (gone) entry_free(gone); /* only ORC's lock is taken: no cycle */
}

/* ---------------------------------------------------------- disk files */

/* An entry's file: the magic, the key, four blocks (stamps, log, kernel
 * descriptions, object), each a 64-bit length and its bytes, and last the
 * BLAKE3 hash of everything before it. */
#define CHECKSUM_SIZE 32

static void entry_name(const weft_cache_key *key, char name[40]) {
  snprintf(name, 40, "%s.bin", key->hex);
}

/* The parts of an entry's encoding (the file's bytes, in order), which
 * point into c, object, sizes and checksum; returns their number. */
#define ENTRY_PARTS (2 + 2 * 4 + 1)
static unsigned entry_parts(const weft_cached *c, const void *object,
                            size_t object_size, uint64_t sizes[4],
                            unsigned char checksum[CHECKSUM_SIZE],
                            weft_cache_part parts[ENTRY_PARTS]) {
  sizes[0] = strlen(c->stamps);
  sizes[1] = strlen(c->log);
  sizes[2] = c->descs_size;
  sizes[3] = object_size;
  const void *blocks[4] = {c->stamps, c->log, c->descs, object};
  unsigned n = 0;
  parts[n++] = (weft_cache_part){FILE_MAGIC, strlen(FILE_MAGIC)};
  parts[n++] = (weft_cache_part){c->key.hex, 32};
  for (int i = 0; i < 4; i++) {
    parts[n++] = (weft_cache_part){&sizes[i], sizeof sizes[i]};
    parts[n++] = (weft_cache_part){blocks[i], sizes[i]};
  }
  weft_hasher h;
  weft__hash_init(&h);
  for (unsigned i = 0; i < n; i++) weft__hash_bytes(&h, parts[i].data, parts[i].size);
  weft__hash_digest(&h, checksum, CHECKSUM_SIZE);
  parts[n++] = (weft_cache_part){checksum, CHECKSUM_SIZE};
  assert(n == ENTRY_PARTS);
  return n;
}

/* Writes the entry through cache_files.c, whole or not at all (another
 * process reading meanwhile sees a whole file or none). A failure only
 * costs a later process a build. */
static void write_entry(const weft_cached *c, const void *object,
                        size_t object_size) {
  int dir = weft__cache_folder(1);
  if (dir < 0) return;
  uint64_t sizes[4];
  unsigned char checksum[CHECKSUM_SIZE];
  weft_cache_part parts[ENTRY_PARTS];
  unsigned n = entry_parts(c, object, object_size, sizes, checksum, parts);
  char name[40];
  entry_name(&c->key, name);
  weft__cache_file_write(dir, name, parts, n);
}

typedef struct file_data {
  unsigned char *data;
  size_t size, at;
} file_data;

/* Whether the file ends with the hash of the rest; the rest is then all
 * that the blocks may be read from. */
static int checksum_holds(file_data *fd) {
  if (fd->size < CHECKSUM_SIZE) return 0;
  fd->size -= CHECKSUM_SIZE;
  weft_hasher h;
  weft__hash_init(&h);
  weft__hash_bytes(&h, fd->data, fd->size);
  unsigned char checksum[CHECKSUM_SIZE];
  weft__hash_digest(&h, checksum, sizeof checksum);
  return !memcmp(checksum, fd->data + fd->size, CHECKSUM_SIZE);
}

/* The next block of the file, or NULL (size 0 is a valid empty block). */
static const unsigned char *next_block(file_data *fd, size_t *size) {
  uint64_t n;
  if (fd->size - fd->at < sizeof n) return NULL;
  memcpy(&n, fd->data + fd->at, sizeof n);
  fd->at += sizeof n;
  if (n > fd->size - fd->at) return NULL;
  const unsigned char *p = fd->data + fd->at;
  fd->at += n;
  *size = n;
  return p;
}

static char *block_string(const unsigned char *p, size_t size) {
  return p ? strndup((const char *)p, size) : NULL;
}

/* An entry's object made usable: host code loaded into ORC under the
 * entry's prefix, or PTX copied as text. */
static int take_object(weft_cached *c, weft_cache_kind kind, const void *object,
                       size_t size, char **error) {
  if (kind == WEFT_CACHE_CODE) {
    int rc = weft__orc_add_object(object, size, c->prefix, &c->code, error);
    if (!rc) weft__perf_map_add(c->code, object, size, c->prefix);
    /* Kept for faults' source lines (code_lines.h); without it a report
     * only lacks its line. */
    if (!rc && (c->object = malloc(size))) {
      memcpy(c->object, object, size);
      c->object_size = size;
    }
    return rc;
  }
  c->ptx = strndup(object, size);
  return c->ptx ? 0 : WEFT_ENOMEM;
}

/* The entry that a whole file (its checksum checked) for key describes, with
 * one reference and its object taken, or NULL: not this key's, stale, or
 * not loadable. *damaged tells a file that is not what Weft wrote. */
static weft_cached *parse_entry(const weft_cache_key *key, weft_cache_kind kind,
                                file_data *fd, int *damaged) {
  size_t magic = strlen(FILE_MAGIC);
  *damaged = 1;
  if (!checksum_holds(fd) || fd->size < magic + 32 ||
      memcmp(fd->data, FILE_MAGIC, magic) ||
      memcmp(fd->data + magic, key->hex, 32))
    return NULL;
  fd->at = magic + 32;
  size_t n_stamps = 0, n_log = 0, n_descs = 0, n_object = 0;
  const unsigned char *stamps = next_block(fd, &n_stamps);
  const unsigned char *log = stamps ? next_block(fd, &n_log) : NULL;
  const unsigned char *descs = log ? next_block(fd, &n_descs) : NULL;
  const unsigned char *object = descs ? next_block(fd, &n_object) : NULL;
  if (!object || fd->at != fd->size) return NULL;
  *damaged = 0;
  weft_cached *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->key = *key;
  atomic_init(&c->refs, 1);
  c->stamps = block_string(stamps, n_stamps);
  c->log = block_string(log, n_log);
  c->descs = malloc(n_descs ? n_descs : 1);
  char *error = NULL;
  if (c->stamps) weft__cache_symbol_prefix(key, c->stamps, c->prefix);
  if (!c->stamps || !c->log || !c->descs || !stamps_hold(c->stamps) ||
      take_object(c, kind, object, n_object, &error)) {
    free(error);
    entry_free(c);
    return NULL;
  }
  memcpy(c->descs, descs, n_descs);
  c->descs_size = n_descs;
  return c;
}

/* Reads the entry for key from disk and takes its object: a new entry
 * with one reference, or NULL. A damaged file is removed, so that the
 * build made instead takes its place. */
static weft_cached *read_entry(const weft_cache_key *key, weft_cache_kind kind) {
  int dir = weft__cache_folder(0);
  char name[40];
  entry_name(key, name);
  file_data fd = {0};
  if (dir < 0 || weft__cache_file_read(dir, name, &fd.data, &fd.size))
    return NULL;
  int damaged;
  weft_cached *c = parse_entry(key, kind, &fd, &damaged);
  if (damaged) weft__cache_file_remove(dir, name);
  free(fd.data);
  return c;
}

/* --------------------------------------------------------------- cache */

/* Keeps c as the helper's entry (table_lock held; c has a reference of
 * the caller's, and takes one more). The one it replaces stays in the
 * table while others hold it. */
static void remember(weft_cached *c) {
  assert(weft__lock_held(&table_lock));
  if (!remembering) return;
  take(c);
  weft_cached *old = remembered;
  remembered = c;
  weft_cached *gone = old ? drop(old) : NULL;
  if (gone) entry_free(gone); /* only ORC's lock is taken: no cycle */
}

weft_cached *weft__cache_find(const weft_cache_key *key, weft_cache_kind kind,
                              int *from_disk) {
  *from_disk = 0;
  weft__lock(&table_lock);
  weft_cached *c = table_get(key);
  if (c) {
    take(c);
  } else if ((c = read_entry(key, kind))) { /* none without a folder */
    c->next = table;
    table = c;
    *from_disk = 1;
  }
  if (c) remember(c);
  weft__unlock(&table_lock);
  return c;
}

int weft__cache_add(const weft_cache_key *key, weft_cache_kind kind,
                    const char *stamps, const void *object, size_t object_size,
                    const unsigned char *descs, size_t descs_size,
                    const char *log, weft_cached **out, char **error) {
  weft_cached *c = calloc(1, sizeof *c);
  if (!c) return WEFT_ENOMEM;
  c->key = *key;
  weft__cache_symbol_prefix(key, stamps, c->prefix);
  atomic_init(&c->refs, 1);
  c->descs = malloc(descs_size ? descs_size : 1);
  c->log = strdup(log ? log : "");
  c->stamps = strdup(stamps);
  if (!c->descs || !c->log || !c->stamps) {
    entry_free(c);
    return WEFT_ENOMEM;
  }
  memcpy(c->descs, descs, descs_size);
  c->descs_size = descs_size;
  weft__lock(&table_lock);
  weft_cached *other = table_get(key);
  if (other && !strcmp(other->prefix, c->prefix)) {
    /* Built by another thread meanwhile: its code is loaded under the
     * same names, so use it. */
    take(other);
    remember(other);
    weft__unlock(&table_lock);
    entry_free(c);
    *out = other;
    return 0;
  }
  int rc = take_object(c, kind, object, object_size, error);
  if (!rc) {
    c->next = table;
    table = c;
    remember(c);
  }
  weft__unlock(&table_lock);
  if (rc) {
    entry_free(c);
    return rc;
  }
  if (storable(stamps)) write_entry(c, object, object_size);
  *out = c;
  return 0;
}

/* ------------------------------------------- builds in a helper process */

static _Thread_local int cache_only;

void weft__cache_only(int on) { cache_only = on; }

int weft__cache_only_now(void) { return cache_only; }

void weft__cache_remember(void) {
  weft__lock(&table_lock);
  remembering = 1;
  weft__unlock(&table_lock);
}

int weft__cache_remembered_bytes(unsigned char **out, size_t *size,
                                 weft_cache_kind *kind) {
  *out = NULL;
  weft__lock(&table_lock);
  weft_cached *c = remembered;
  if (c) take(c);
  weft__unlock(&table_lock);
  if (!c) return WEFT_EINVAL;
  *kind = c->code ? WEFT_CACHE_CODE : WEFT_CACHE_PTX;
  const void *object = c->code ? c->object : c->ptx;
  size_t object_size = c->code ? c->object_size : (c->ptx ? strlen(c->ptx) : 0);
  int rc = WEFT_ENOMEM;
  if (object) {
    uint64_t sizes[4];
    unsigned char checksum[CHECKSUM_SIZE];
    weft_cache_part parts[ENTRY_PARTS];
    unsigned n = entry_parts(c, object, object_size, sizes, checksum, parts);
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) total += parts[i].size;
    if ((*out = malloc(total))) {
      *size = 0;
      for (unsigned i = 0; i < n; i++) {
        memcpy(*out + *size, parts[i].data, parts[i].size);
        *size += parts[i].size;
      }
      rc = 0;
    }
  }
  weft__cache_release(c);
  return rc;
}

weft_cached *weft__cache_adopt(weft_cache_kind kind, const unsigned char *bytes,
                               size_t size) {
  size_t magic = strlen(FILE_MAGIC);
  if (size < magic + 32) return NULL;
  weft_cache_key key;
  memcpy(key.hex, bytes + magic, 32);
  key.hex[32] = 0;
  file_data fd = {malloc(size), size, 0};
  if (!fd.data) return NULL;
  memcpy(fd.data, bytes, size);
  int damaged;
  weft_cached *c = parse_entry(&key, kind, &fd, &damaged);
  free(fd.data);
  if (!c) return NULL;
  weft__lock(&table_lock);
  weft_cached *other = table_get(&key);
  if (other && !strcmp(other->prefix, c->prefix)) {
    take(other);
    weft__unlock(&table_lock);
    entry_free(c);
    return other;
  }
  c->next = table;
  table = c;
  weft__unlock(&table_lock);
  return c;
}
