# One image for every Gargamel process (scheduler, node, TPC-C client): the all-in-one jar and a JRE.
# Built and run by docker-compose.yml; not exercised on machines without a Docker engine (such as our CI).
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY common/pom.xml common/
COPY classifier/pom.xml classifier/
COPY scheduler/pom.xml scheduler/
COPY node/pom.xml node/
COPY client-tpcc/pom.xml client-tpcc/
RUN ./mvnw -B -q dependency:go-offline -DexcludeGroupIds=org.gargamel || true
COPY . .
RUN ./mvnw -B -q -DskipTests package

FROM eclipse-temurin:17-jre
WORKDIR /opt/gargamel
COPY --from=build /src/client-tpcc/target/gargamel-all.jar gargamel-all.jar
COPY deploy/ /etc/gargamel/
ENTRYPOINT ["java", "-jar", "/opt/gargamel/gargamel-all.jar"]
CMD ["help"]
