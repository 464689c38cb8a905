# embed.cmake - turn a file into a C source defining `const char <NAME>[]` (NUL-terminated) and
# `const size_t <NAME>_len`. Run as: cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -DHEADER=<h> -P embed.cmake
include("${CMAKE_CURRENT_LIST_DIR}/hex_bytes.cmake")
nq_hex_bytes("${IN}" bytes len)
file(WRITE "${OUT}"
  "/* ${NAME}.c - generated from ${IN} by embed.cmake; do not edit. */\n"
  "#include \"${HEADER}\"\n\n"
  "const char ${NAME}[] = {\n    ${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${len};\n")
