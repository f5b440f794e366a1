#include <cstdio>
int main() { std::puts("mallat: skeleton"); return 0; }
