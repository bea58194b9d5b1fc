// bug: ABA in a lock-free (Treiber) stack whose head is a bare node index:
// a group that read the top and its successor wins its compare-and-swap
// after others popped that top and its successor and pushed the top back,
// and makes the successor, which another group now owns, the top again.
// Even groups pop a node; odd groups pop two and push the first back. The
// last group to finish walks the stack: seen[n] counts node n's owners and
// places in the stack, bad[0] the nodes not seen exactly once.
// run: --global 16 --local 2 --arg int[1]=fill:16 --arg int[17]=iota --arg int[17] --arg int[2] --expect bad[0]==0
// explore: --global 4 --local 2 --arg int[1]=fill:4 --arg int[5]=iota --arg int[5] --arg int[2] --expect bad[0]==0

/* Node n's successor is next[n] - 1: iota makes the stack N, N-1, ..., 1
 * (0 ends it). */
static int pop(volatile __global atomic_int *head, __global int *next) {
  int top = atomic_load(head);
  while (top) {
    int succ = next[top] - 1;
    if (atomic_compare_exchange_strong(head, &top, succ)) break;
  }
  return top;
}

static void push(volatile __global atomic_int *head, __global int *next,
                 int n) {
  int top = atomic_load(head);
  do next[n] = top + 1;
  while (!atomic_compare_exchange_strong(head, &top, n));
}

__kernel void aba_stack(__global int *h, __global int *next,
                        __global int *seen, __global int *bad) {
  volatile __global atomic_int *head = (volatile __global atomic_int *)h;
  if (get_local_id(0)) return;
  int g = get_group_id(0), groups = get_num_groups(0), nodes = 2 * groups;
  if (g % 2 == 0) {
    int a = pop(head, next);
    if (a) atomic_inc(&seen[a]);
  } else {
    int a = pop(head, next), b = pop(head, next);
    if (b) atomic_inc(&seen[b]);
    if (a) push(head, next, a);
  }
  if (atomic_inc(&bad[1]) != groups - 1) return;
  int steps = 0;
  for (int t = atomic_load(head); t && steps <= nodes; t = next[t] - 1) {
    seen[t]++;
    steps++;
  }
  for (int n = 1; n <= nodes; n++) bad[0] += seen[n] != 1;
  if (steps > nodes) bad[0] += 100; /* a cycle */
}
