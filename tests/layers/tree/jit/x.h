int x(void);
