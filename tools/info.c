/* info.c: `weft info`, the devices and their limits, aligned as clinfo
 * aligns them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "weft/weft.h"

/* The width of the label column. */
#define LABEL_WIDTH 28

static void print_field(const char *label, const char *value) {
  printf("  %-*s%s\n", LABEL_WIDTH, label, value);
}

/* Prints a byte count the way people read it, with the exact count beside:
 * "16 GiB (17179869184 bytes)". */
static void print_bytes(const char *label, uint64_t bytes) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double amount = (double)bytes;
  unsigned unit = 0;
  while (amount >= 1024 && unit + 1 < sizeof units / sizeof *units) {
    amount /= 1024;
    unit++;
  }
  char text[96];
  if (unit == 0)
    snprintf(text, sizeof text, "%" PRIu64 " bytes", bytes);
  else
    snprintf(text, sizeof text, "%.4g %s (%" PRIu64 " bytes)", amount,
             units[unit], bytes);
  print_field(label, text);
}

static void print_number(const char *label, uint64_t value) {
  char text[32];
  snprintf(text, sizeof text, "%" PRIu64, value);
  print_field(label, text);
}

static void print_device(int index, const weft_device_info *info) {
  char text[96];
  printf("Device %d\n", index);
  print_field("Kind", info->kind == WEFT_DEVICE_GPU ? "GPU" : "CPU");
  print_field("Name", info->name);
  print_field("Vendor", info->vendor);
  print_number("Compute units (threads)", info->compute_units);
  print_number("Max work-group size", info->max_work_group_size);
  snprintf(text, sizeof text, "%zu x %zu x %zu", info->max_work_item_sizes[0],
           info->max_work_item_sizes[1], info->max_work_item_sizes[2]);
  print_field("Max work-item sizes", text);
  print_bytes("Global memory", info->global_mem_size);
  print_bytes("Max allocation", info->max_alloc_size);
  print_bytes("Local memory per group", info->local_mem_size);
  print_number("Address bits", info->address_bits);
  print_bytes("Work-item stack size", info->stack_size);
  print_field("Barriers", info->barriers);
  print_field("Context switch", info->fiber);
  print_number("Max resident work-groups", info->max_resident_groups);
}

/* Describes one device; a failure is reported and ends the listing. */
static int show_device(int index) {
  weft_device *device;
  weft_device_info info;
  char what[64];
  snprintf(what, sizeof what, "device %d", index);
  int rc = weft_device_get(index, &device);
  if (rc) {
    tool_report("info", what, rc, NULL);
    return rc;
  }
  rc = weft_device_info_get(device, &info);
  if (rc) {
    tool_report("info", what, rc, device);
    return rc;
  }
  print_device(index, &info);
  return 0;
}

int tool_info(int argc, char **argv) {
  (void)argv; /* weft info --help: main answers it */
  if (argc > 1) {
    tool_usage_error("info", "'weft info' takes no arguments");
    return TOOL_EXIT_USAGE;
  }
  int count = weft_device_count();
  if (count < 0) {
    tool_error("info", "cannot count the devices: %s", weft_strerror(count));
    return TOOL_EXIT_FAILED;
  }
  printf("%-*s%s\n", LABEL_WIDTH + 2, "Weft version", weft_version());
  printf("%-*s%d\n", LABEL_WIDTH + 2, "Number of devices", count);
  for (int i = 0; i < count; i++) {
    printf("\n");
    if (show_device(i)) return TOOL_EXIT_FAILED;
  }
  printf("\n%-*s%s\n", LABEL_WIDTH + 2, "CUDA", weft_cuda_status());
  return TOOL_EXIT_OK;
}
