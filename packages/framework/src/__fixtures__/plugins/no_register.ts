// Test plugin: exports no register() function.
export const notRegister = 42;
