# nnfx on Debian bookworm-slim: the command line and the runtime libraries it
# needs (OpenBLAS, libcurl with OpenSSL, CA certificates) and nothing else.
# Both stages install through tools/install-deps-runtime.sh, the script CI
# runs too (tools/install-deps.sh calls it), so the image and CI agree on the
# package list; tests/publish/check_runtime_deps.sh checks that list against
# the libraries the built binary links.
#   docker build -t nnfx .
#   docker run --rm -v "$PWD:/w" -w /w nnfx analyze model.onnx
FROM debian:bookworm-slim AS build
COPY . /src
WORKDIR /src
RUN tools/install-deps-runtime.sh --build \
 && cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNNFX_BUILD_TESTS=OFF \
 && cmake --build /build \
 && cmake --install /build --prefix /opt/nnfx

FROM debian:bookworm-slim
COPY tools/install-deps-runtime.sh /tmp/install-deps-runtime.sh
RUN /tmp/install-deps-runtime.sh && rm -rf /var/lib/apt/lists/* /tmp/install-deps-runtime.sh
COPY --from=build /opt/nnfx/bin/nnfx /usr/local/bin/nnfx
ENTRYPOINT ["nnfx"]
CMD ["--help"]
