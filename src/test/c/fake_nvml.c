/*
 * A stand-in for libnvidia-ml.so.1 for gpuq's tests: the same versioned symbols and struct
 * layouts as nvml.h, with known devices and processes, and behaviour chosen by
 * fake_nvml_set_scenario() so that one loaded copy serves every test (JNA keeps a library loaded
 * once per name).
 *
 * Build: gcc -shared -fPIC -o target/fake-nvml/libfake-nvidia-ml.so.1 src/test/c/fake_nvml.c
 *
 * Not named libnvidia-ml.so.1: JNA also caches a loaded library under its file name, so a later
 * lookup of the real name in the same JVM would silently get this stand-in.
 */
#include <stddef.h>
#include <string.h>

typedef int nvmlReturn_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_UNKNOWN 999

#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* Layouts as in nvml.h. */
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t is 24 bytes on LP64");
_Static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8, "usedGpuMemory at 8");

struct fake_device {
  const char *uuid;
  const char *name;
  unsigned long long total;
  unsigned long long used;
  unsigned int utilization;
};
typedef struct fake_device *nvmlDevice_t;

#define GIB (1024ULL * 1024ULL * 1024ULL)

static struct fake_device devices[2] = {
    {"GPU-00000000-1111-2222-3333-444444444444", "NVIDIA Fake A100", 40 * GIB, 3 * GIB, 63},
    {"GPU-55555555-6666-7777-8888-999999999999", "NVIDIA Fake H100 80GB HBM3", 80 * GIB, 0, 0},
};

/* Scenarios, numbered as in FakeNvml.Scenario on the Java side. */
enum {
  NORMAL = 0,            /* GPU 0: pids 1001 (1 GiB) and 1002 (2 GiB); GPU 1: nothing */
  INIT_FAILS = 1,        /* nvmlInit_v2 -> NVML_ERROR_DRIVER_NOT_LOADED */
  GROWING_LIST = 2,      /* GPU 0 shows 3 processes at the first call, 20 from the second on */
  EVER_GROWING_LIST = 3, /* GPU 0 always has one process more than the room offered */
  UTILIZATION_NOT_SUPPORTED = 4,
  MEMORY_NOT_AVAILABLE = 5, /* usedGpuMemory = NVML_VALUE_NOT_AVAILABLE for every process */
  NO_DEVICES = 6,
  GPU_LOST = 7 /* nvmlDeviceGetMemoryInfo on GPU 1 -> NVML_ERROR_GPU_IS_LOST, after init */
};

static int scenario = NORMAL;
static int init_count = 0;
static int process_calls = 0;
static int memory_info_calls = 0;

/* ---- test control ---- */

void fake_nvml_set_scenario(int s) {
  scenario = s;
  process_calls = 0;
  memory_info_calls = 0;
}

int fake_nvml_init_count(void) { return init_count; }

int fake_nvml_process_calls(void) { return process_calls; }

/* ---- NVML ---- */

const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlInit_v2(void) {
  if (scenario == INIT_FAILS) return NVML_ERROR_DRIVER_NOT_LOADED;
  init_count++;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  init_count--;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *count = scenario == NO_DEVICES ? 0 : 2;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (index >= 2 || device == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &devices[index];
  return NVML_SUCCESS;
}

static int valid(nvmlDevice_t device) { return device == &devices[0] || device == &devices[1]; }

static nvmlReturn_t copy_string(const char *value, char *out, unsigned int length) {
  if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  strcpy(out, value);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_string(device->uuid, uuid, length);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device)) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_string(device->name, name, length);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  memory_info_calls++;
  /* The backend reads each device's total once while opening; afterwards GPU 1 is lost. */
  if (scenario == GPU_LOST && device == &devices[1] && memory_info_calls > 2)
    return NVML_ERROR_GPU_IS_LOST;
  memory->total = device->total;
  memory->used = device->used;
  memory->free = device->total - device->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || utilization == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (scenario == UTILIZATION_NOT_SUPPORTED) return NVML_ERROR_NOT_SUPPORTED;
  utilization->gpu = device->utilization;
  utilization->memory = device->utilization / 2;
  return NVML_SUCCESS;
}

/* How many processes GPU 0 has at this call (the call counter is already incremented). */
static unsigned int processes_on_gpu0(unsigned int room) {
  switch (scenario) {
    case GROWING_LIST: return process_calls == 1 ? 3 : 20;
    case EVER_GROWING_LIST: return room + 1;
    default: return 2;
  }
}

/* pid 1001, 1002, ... with (index + 1) GiB each; 0xAB instance ids to show the field is there. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || infoCount == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (device != &devices[0]) {
    *infoCount = 0;
    return NVML_SUCCESS;
  }
  process_calls++;
  unsigned int present = processes_on_gpu0(infos == NULL ? 0 : *infoCount);
  if (*infoCount < present || infos == NULL) {
    if (present == 0) {
      *infoCount = 0;
      return NVML_SUCCESS;
    }
    *infoCount = present;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned int i = 0; i < present; i++) {
    infos[i].pid = 1001 + i;
    infos[i].usedGpuMemory =
        scenario == MEMORY_NOT_AVAILABLE ? NVML_VALUE_NOT_AVAILABLE : (i + 1) * GIB;
    infos[i].gpuInstanceId = 0xAB;
    infos[i].computeInstanceId = 0xAB;
  }
  *infoCount = present;
  return NVML_SUCCESS;
}
