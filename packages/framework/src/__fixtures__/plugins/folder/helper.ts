export const greeting = 'hello from the folder';
