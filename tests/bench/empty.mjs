export const empty = true;
