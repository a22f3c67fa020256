# offgrid in a container, for benchmarks on a cluster (deploy/). Build it
# with `docker build -t offgrid .`; the model comes from a volume mounted
# at /models, or bundle one (offgrid bundle) and copy that executable in
# instead. PORTABLE=1 builds for any recent CPU of the architecture rather
# than the build machine's.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build PORTABLE=1

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libstdc++6 \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /src/bin/offgrid /usr/local/bin/offgrid
ENV XDG_CACHE_HOME=/cache XDG_DATA_HOME=/data
ENTRYPOINT ["offgrid"]
