# web_embed.cmake - turn the web page (web/) into a C source defining the table of routes/web_data.h.
# Run as: cmake -DWEB=<dir> -DOUT=<file.c> -DHEADER=<h> -DFILES=<a|b|...> -P web_embed.cmake
#
# FILES lists the page's files relative to WEB, each after every file it names: an asset is served as
# name.<hash>.ext (the first 12 hex digits of the SHA-256 of its bytes as served), and every "/name.ext"
# in a later file (an import, a url(), a link) is rewritten to that hashed name before the later file
# is hashed in turn. So a change anywhere changes the name of each file that leads to it, and index.html
# (listed last, served at "/") always names the current assets. The rewritten files are also written
# beside OUT (web/), to read what is served.
string(REPLACE "|" ";" FILES "${FILES}") # joined with "|" to pass as one argument
get_filename_component(outdir "${OUT}" DIRECTORY)
set(renames "")
set(rows "")
set(arrays "")
set(i 0)
include("${CMAKE_CURRENT_LIST_DIR}/hex_bytes.cmake")
foreach(f IN LISTS FILES)
  file(READ "${WEB}/${f}" text)
  foreach(pair IN LISTS renames)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 from)
    list(GET pair 1 to)
    string(REPLACE "/${from}" "/${to}" text "${text}")
  endforeach()
  get_filename_component(dir "${f}" DIRECTORY)
  get_filename_component(name "${f}" NAME)
  get_filename_component(stem "${f}" NAME_WLE)
  get_filename_component(ext "${f}" LAST_EXT)
  if(ext STREQUAL ".html")
    set(media "text/html; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(media "text/css; charset=utf-8")
  elseif(ext STREQUAL ".js")
    set(media "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(media "image/svg+xml")
  else()
    message(FATAL_ERROR "web_embed.cmake: no media type for ${f}")
  endif()
  if(f STREQUAL "index.html")
    set(served "index.html")
    set(url "/")
  else()
    string(SHA256 digest "${text}")
    string(SUBSTRING "${digest}" 0 12 digest)
    set(served "${stem}.${digest}${ext}")
    set(url "/${dir}/${served}")
    list(APPEND renames "${name}=${served}")
  endif()
  file(WRITE "${outdir}/web/${served}" "${text}")
  nq_hex_bytes("${outdir}/web/${served}" bytes len)
  string(APPEND arrays "/* ${f} */\nstatic const unsigned char file${i}[] = { /* unsigned: UTF-8 bytes above 0x7f */\n    ${bytes}0x00};\n\n")
  string(APPEND rows "    {\"${url}\", \"${media}\", (const char *)file${i}, ${len}},\n")
  math(EXPR i "${i} + 1")
endforeach()
file(WRITE "${OUT}"
  "/* web_data.c - generated from web/ by web_embed.cmake; do not edit. */\n"
  "#include \"${HEADER}\"\n\n"
  "${arrays}"
  "const nq_web_file nq_web_files[] = {\n${rows}};\n"
  "const size_t nq_web_files_count = ${i};\n")
