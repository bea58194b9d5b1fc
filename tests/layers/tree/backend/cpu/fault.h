/* fault.h: one back end's file. */
int fault(void);
