int y(void);
