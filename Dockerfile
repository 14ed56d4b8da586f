# One image for every Gargamel process: gargamel-server.jar for the scheduler and the nodes (no TPC-C kit, no embedded
# PostgreSQL), gargamel-all.jar for the TPC-C client. Built and run by docker-compose.yml; not exercised on machines
# without a Docker engine (such as our CI).
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY common/pom.xml common/
COPY provisioning/pom.xml provisioning/
COPY classifier/pom.xml classifier/
COPY scheduler/pom.xml scheduler/
COPY node/pom.xml node/
COPY client-tpcc/pom.xml client-tpcc/
COPY launcher/pom.xml launcher/
RUN ./mvnw -B -q dependency:go-offline -DexcludeGroupIds=org.gargamel || true
COPY . .
RUN ./mvnw -B -q -DskipTests package

FROM eclipse-temurin:17-jre
WORKDIR /opt/gargamel
COPY --from=build /src/launcher/target/gargamel-all.jar /src/launcher/target/gargamel-server.jar ./
COPY deploy/ /etc/gargamel/
COPY client-tpcc/src/main/resources/org/gargamel/tpcc/tpcc-rules.yaml /etc/gargamel/tpcc-rules.yaml
ENTRYPOINT ["java", "-jar", "/opt/gargamel/gargamel-all.jar"]
CMD ["help"]
