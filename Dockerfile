# One small, non-root image with the static disco binary; every role (manager, apiserver,
# engine Jobs) runs it with a different subcommand.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/disco .

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/disco /disco
USER 65532:65532
ENTRYPOINT ["/disco"]
CMD ["manager"]
