// The program each core folder's link check builds (core/CMakeLists.txt): it only has to link.
int main() { return 0; }
